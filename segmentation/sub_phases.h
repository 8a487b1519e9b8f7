// Further phases (evaluation passes, a loop after the loop): the repeats
// among the calls picked outside the main phase's ordinary steps
// (segmentation/extra_work.h).
#pragma once

#include <vector>

#include "segmentation/call_tokens.h"
#include "segmentation/extra_work.h"
#include "segmentation/phase_steps.h"
#include "trace/event.h"

namespace syncscope::segmentation {

// Searches for further phases, each in what the ones before left (a
// validation and a test pass); a third would be a phase of the leftovers.
inline constexpr int kMaxSubPhases = 2;

// Up to kMaxSubPhases phases of at least kMinSteadySteps steps, finished,
// unnamed, in the order found (the dominant repeat first); each covers the
// stretches in its `spans`.
std::vector<PhaseSteps> sub_phases(const std::vector<Event>& events, const ThreadTokens& main_seq,
                                   const Picked& picked);

}  // namespace syncscope::segmentation
