#include "detectors/analysis.h"

#include <algorithm>

#include "detectors/detectors.h"
#include "detectors/segmentation.h"
#include "detectors/waiters.h"

namespace syncscope {

Analysis analyze(const ProcessTrace& trace, const StepOptions& options) {
  Analysis a;
  Segmentation segmentation = segment_run(trace.events, options);
  attribute_to_waiters(
      trace.events,
      [&](uint32_t stack) {
        auto it = trace.python_stacks.find(stack);
        return it != trace.python_stacks.end() && !it->second.empty();
      },
      &segmentation);
  GpuAttribution gpu;
  if (has_gpu_work(trace.gpu_activity)) {
    gpu = attribute_gpu_time(trace.events, segmentation, trace.gpu_activity);
    segmentation.gpu_cost = std::move(gpu.per_event);
    a.gpu_timeline = true;
    a.gpu = std::move(gpu.phases);
  }
  a.steps = segmentation.main;
  a.phases = segmentation.phases;
  for (PhaseInfo& phase : a.phases) phase.name = phase_name(phase, trace.strings);
  using Detector = std::vector<Finding> (*)(const std::vector<Event>&, const Segmentation&);
  for (Detector detector : {Detector{detect_hidden_syncs}, Detector{detect_pageable_copies},
                            Detector{detect_allocator_churn}, Detector{detect_default_stream}}) {
    std::vector<Finding> found = detector(trace.events, segmentation);
    a.findings.insert(a.findings.end(), found.begin(), found.end());
  }
  std::stable_sort(a.findings.begin(), a.findings.end(), [](const Finding& x, const Finding& y) {
    if ((x.phase == Phase::kSteady) != (y.phase == Phase::kSteady)) return x.phase == Phase::kSteady;
    return x.severity > y.severity;
  });
  for (const Finding& f : a.findings) {
    // Host time lost: syncs, plus pageable copies that were meant to be async
    // (synchronous pageable copies are already counted as syncs).
    bool counts = f.category == Category::kHiddenSync ||
                  (f.category == Category::kPageableCopy && f.cause == Cause::kAsyncRequested);
    if (f.phase == Phase::kSteady && counts) a.blocked_ns_per_step += f.blocked_ns_per_step;
  }
  return a;
}

const GpuPhaseFigures* Analysis::gpu_for_phase(size_t index) const {
  for (const GpuPhaseFigures& g : gpu) {
    if (g.phase_index >= 0 && static_cast<size_t>(g.phase_index) == index) return &g;
  }
  return nullptr;
}

}  // namespace syncscope
