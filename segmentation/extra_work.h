// What the main phase's ordinary steps do not explain: the main thread's
// calls that are searched for further phases (an eval pass, a checkpoint),
// each with the stretch of the run it came from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "segmentation/call_tokens.h"
#include "segmentation/phase_steps.h"
#include "trace/event.h"

namespace syncscope::segmentation {

// Positions in the main thread's sequence, each with its region (the
// stretch it came from, numbered from 0 in order).
struct Picked {
  std::vector<size_t> positions;
  std::vector<uint32_t> region_of;
  uint32_t regions = 0;
};

// What an unusual step holds beyond an ordinary one: steps that last much
// longer than the median or make many more calls (an eval pass, a checkpoint,
// a log line inside them) keep the calls left once an ordinary step's calls
// are taken out, from the end: a step ends with its own forward, backward and
// optimizer step, so what comes first is the extra work. One region per
// unusual step.
Picked extra_work(const std::vector<Event>& events, const ThreadTokens& main_seq, const PhaseSteps& phase);

// Adds every main-thread call inside the time stretches ([begin, end), in
// order, disjoint), one region per stretch that holds any; one sweep.
void pick_stretches(const std::vector<Event>& events, const ThreadTokens& main_seq,
                    const std::vector<std::pair<uint64_t, uint64_t>>& stretches, Picked* picked);

}  // namespace syncscope::segmentation
