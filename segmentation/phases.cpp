#include "segmentation/phases.h"

namespace syncscope {

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::kWarmup:
      return "warmup";
    case Phase::kSteady:
      return "steady";
    case Phase::kTeardown:
      return "teardown";
  }
  return "unknown";
}

const char* step_source_name(StepSource s) {
  switch (s) {
    case StepSource::kOptimizerStep:
      return "optimizer-step";
    case StepSource::kNvtxRange:
      return "nvtx-range";
    case StepSource::kBackward:
      return "backward";
    case StepSource::kPattern:
      return "pattern";
    case StepSource::kTime:
      return "time";
  }
  return "?";
}

bool is_training_source(StepSource s) {
  return s == StepSource::kOptimizerStep || s == StepSource::kNvtxRange || s == StepSource::kBackward;
}

std::string phase_name(const PhaseInfo& phase, const std::unordered_map<uint32_t, std::string>& strings) {
  if (phase.source != StepSource::kNvtxRange) return phase.name;
  auto name = strings.find(phase.nvtx_name_id);
  return name == strings.end() || name->second.empty() ? phase.name : name->second;
}

}  // namespace syncscope
