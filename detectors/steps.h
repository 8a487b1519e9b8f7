// Steady-state segmentation: where warm-up ends and training steps repeat.
// Steps come from the repeating pattern of calls (the period of the sequence
// of launches, copies and syncs, each identified by kernel or call site and
// stream); without one, a time-based warm-up splits the run.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/event.h"

namespace syncscope {

struct StepOptions {
  double warmup_seconds = -1;  // time-based warm-up when no period is found; <0: 10% of the run
  int warmup_steps = 1;        // periods counted as warm-up once steps are detected
  double min_match = 0.8;      // share of launches that must repeat with the period
};

struct StepInfo {
  bool detected = false;        // a launch period was found
  uint32_t period_calls = 0;   // pattern calls (launches, copies, syncs) per step
  uint64_t steps = 0;           // steady steps
  uint64_t steady_start_ns = 0; // events in [steady_start_ns, steady_end_ns) are steady
  uint64_t steady_end_ns = 0;   // after the last full step: teardown
  uint64_t end_ns = 0;
  double step_ns = 0;           // mean steady step time (0 when unknown)
};

// events must be sorted by start time.
StepInfo detect_steps(const std::vector<Event>& events, const StepOptions& options);

}  // namespace syncscope
