// Runs steady-state detection and every detector over one process's trace.
#pragma once

#include <vector>

#include "detectors/finding.h"
#include "detectors/gpu_attribution.h"
#include "detectors/phases.h"
#include "detectors/steps.h"
#include "trace/reader.h"

namespace syncscope {

struct Analysis {
  StepInfo steps;                  // the main (training) phase's steps, as every detector uses them
  std::vector<PhaseInfo> phases;   // recurring phases, the main one first (empty: no steps found)
  std::vector<Finding> findings;   // ranked: steady first, then by severity
  double blocked_ns_per_step = 0;  // steady hidden-sync + pageable host time per step (0 if no steps)
  // GPU timeline (docs/gpu-timeline.md): only when the trace has GPU work.
  bool gpu_timeline = false;         // kernels, copies or memsets were recorded
  std::vector<GpuPhaseFigures> gpu;  // busy and idle by cause, per phase with steps
  // The GPU figures of phase `index` (into `phases`), nullptr when none.
  const GpuPhaseFigures* gpu_for_phase(size_t index) const;
};

Analysis analyze(const ProcessTrace& trace, const StepOptions& options = {});

}  // namespace syncscope
