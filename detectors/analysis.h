// Runs steady-state detection and every detector over one process's trace.
#pragma once

#include <vector>

#include "detectors/finding.h"
#include "detectors/phases.h"
#include "detectors/steps.h"
#include "trace/reader.h"

namespace syncscope {

struct Analysis {
  StepInfo steps;                 // the main (training) phase's steps, as every detector uses them
  std::vector<PhaseInfo> phases;  // recurring phases, the main one first (empty: no steps found)
  std::vector<Finding> findings;  // ranked: steady first, then by severity
  double blocked_ns_per_step = 0; // steady hidden-sync + pageable host time per step (0 if no steps)
};

Analysis analyze(const ProcessTrace& trace, const StepOptions& options = {});

}  // namespace syncscope
