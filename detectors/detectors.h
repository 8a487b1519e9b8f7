// The detectors: each a pure function of a trace's events and its steps.
// One per file; see docs/findings-schema.md for what each reports.
#pragma once

#include <vector>

#include "detectors/finding.h"
#include "detectors/segmentation.h"
#include "detectors/steps.h"
#include "trace/event.h"

namespace syncscope {

// Host blocked on the GPU: explicit syncs, read-backs (D2H copy then wait),
// implicit syncs (cudaFree, cudaFreeHost, synchronous copies and memsets).
std::vector<Finding> detect_hidden_syncs(const std::vector<Event>& events, const Segmentation& segmentation);
// Copies between the device and pageable host memory.
std::vector<Finding> detect_pageable_copies(const std::vector<Event>& events, const Segmentation& segmentation);
// Device and pinned allocations and frees after warm-up.
std::vector<Finding> detect_allocator_churn(const std::vector<Event>& events, const Segmentation& segmentation);
// Copies on the compute stream; legacy default stream work beside blocking streams.
std::vector<Finding> detect_default_stream(const std::vector<Event>& events, const Segmentation& segmentation);

// The same with steps computed elsewhere, labelled by time alone (tests).
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
