// Sampling (docs/gpu-timeline.md, "Sampling"): the GPU activity kinds on
// for a stretch of config().gpu_burst_ms every config().gpu_period_ms,
// toggled by the collector's drain, never in a hooked call; each stretch
// recorded is filed in the trace as a kWindow record (the trace format keeps the name), less its margins.
#pragma once

#include <cstdint>

#include "preload/gpu_timeline/cupti_state.h"

namespace syncscope::preload::cupti {

// Right after the kinds were enabled at start: the schedule, and the kinds
// off until the first burst.
void start_sampling(Control& c);
// The collector's drain: opens or closes the burst that is due.
void advance_sampling(Control& c, uint64_t now);
// Turns the kinds off and files the burst (less its margins) for the trace.
void close_burst(Control& c);

}  // namespace syncscope::preload::cupti
