// The detectors: each a pure function of a trace's events and its steps.
// One per file; see docs/findings-schema.md for what each reports.
#pragma once

#include <vector>

#include "detectors/finding.h"
#include "segmentation/segmentation.h"
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

}  // namespace syncscope
