// Steps from a repeating pattern of calls (segmentation/period_search.h): step
// boundaries every `period` calls of each stretch where the period holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "segmentation/period_search.h"
#include "segmentation/call_tokens.h"
#include "segmentation/phase_steps.h"
#include "trace/event.h"

namespace syncscope::segmentation {

// Adds to `out` the steps of the period found in `seq`, past the first
// `skip_steps`, and the stretch each piece of them covers. With `region_of`
// (sub-phases: several separate stretches of the run's time searched as one
// sequence, each call's stretch given), runs are cut where the region
// changes, each piece trimmed to the calls that repeat inside its own
// region, and pieces of fewer than two periods, or of no kernels, dropped.
void steps_from_runs(const std::vector<Event>& events, const ThreadTokens& seq, const PeriodSearch& found,
                     const std::vector<uint32_t>* region_of, size_t skip_steps, PhaseSteps* out);

}  // namespace syncscope::segmentation
