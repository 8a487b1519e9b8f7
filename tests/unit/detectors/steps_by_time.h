// Test-only entry points to the detectors (issue 26: they lived in
// detectors/): the main phase's steps as segment_run finds them, and a
// segmentation made from steps given by hand, labelled by time alone
// (warm-up before steady_start_ns, one phase up to steady_end_ns, then
// teardown), with each detector run on it.
#pragma once

#include <vector>

#include "detectors/detectors.h"
#include "segmentation/segmentation.h"
#include "segmentation/steps.h"
#include "trace/event.h"

namespace syncscope {

// events sorted by start time.
inline StepInfo detect_steps(const std::vector<Event>& events, const StepOptions& options) {
  return segment_run(events, options).main;
}

inline Segmentation segmentation_from_steps(const std::vector<Event>& events, const StepInfo& steps) {
  Segmentation seg;
  seg.base = events.data();
  seg.places.resize(events.size());
  seg.main = steps;
  const bool with_phase = steps.detected && steps.steps > 0;
  if (with_phase) {
    PhaseInfo phase;
    phase.name = "loop";
    phase.steps = steps.steps;
    phase.calls_per_step = steps.period_calls;
    phase.step_ns = steps.step_ns;
    phase.start_ns = steps.steady_start_ns;
    phase.end_ns = steps.steady_end_ns;
    seg.phases.push_back(phase);
  }
  for (size_t i = 0; i < events.size(); ++i) {
    const uint64_t t = events[i].start_ns;
    EventPlace& place = seg.places[i];
    place.phase = t < steps.steady_start_ns ? Phase::kWarmup
                  : t < steps.steady_end_ns ? Phase::kSteady
                                            : Phase::kTeardown;
    if (place.phase == Phase::kSteady && with_phase) {
      place.phase_index = 0;
      place.step =
          steps.step_ns > 0 ? static_cast<uint32_t>(static_cast<double>(t - steps.steady_start_ns) / steps.step_ns) : 0;
    }
  }
  return seg;
}

inline std::vector<Finding> detect_hidden_syncs(const std::vector<Event>& events, const StepInfo& steps) {
  return detect_hidden_syncs(events, segmentation_from_steps(events, steps));
}
inline std::vector<Finding> detect_pageable_copies(const std::vector<Event>& events, const StepInfo& steps) {
  return detect_pageable_copies(events, segmentation_from_steps(events, steps));
}
inline std::vector<Finding> detect_allocator_churn(const std::vector<Event>& events, const StepInfo& steps) {
  return detect_allocator_churn(events, segmentation_from_steps(events, steps));
}
inline std::vector<Finding> detect_default_stream(const std::vector<Event>& events, const StepInfo& steps) {
  return detect_default_stream(events, segmentation_from_steps(events, steps));
}

}  // namespace syncscope
