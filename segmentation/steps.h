// Steady-state steps of a run, in the form every detector uses: where
// warm-up ends, how many steps follow and how long each takes. The rule that
// finds them lives in segmentation/segmentation.h (segment_run(...).main).
#pragma once

#include <cstdint>
#include <vector>

#include "trace/event.h"

namespace syncscope {

struct StepOptions {
  double warmup_seconds = -1;  // time-based warm-up when no period is found; <0: 10% of the run
  // Steps counted as warm-up once steps are detected; <0: automatic, 2 for
  // optimizer steps (PyTorch's caching allocator settles in the second step,
  // once the optimizer's state exists) and 1 for a repeating pattern.
  int warmup_steps = -1;
};

struct StepInfo {
  bool detected = false;         // a launch period was found
  uint32_t period_calls = 0;     // pattern calls (launches, copies, syncs) per step
  uint64_t steps = 0;            // steady steps
  uint64_t steady_start_ns = 0;  // events in [steady_start_ns, steady_end_ns) are steady
  uint64_t steady_end_ns = 0;    // after the last full step: teardown
  uint64_t end_ns = 0;
  double step_ns = 0;  // mean steady step time (0 when unknown)
};

}  // namespace syncscope
