#include "detectors/analysis.h"

#include <algorithm>

#include "detectors/detectors.h"

namespace syncscope {

Analysis analyze(const ProcessTrace& trace, const StepOptions& options) {
  Analysis a;
  a.steps = detect_steps(trace.events, options);
  for (auto* detector : {detect_hidden_syncs, detect_pageable_copies, detect_allocator_churn, detect_default_stream}) {
    std::vector<Finding> found = detector(trace.events, a.steps);
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
                  (f.category == Category::kPageableCopy && f.cause == "async-requested");
    if (f.phase == Phase::kSteady && counts) a.blocked_ns_per_step += f.blocked_ns_per_step;
  }
  return a;
}

}  // namespace syncscope
