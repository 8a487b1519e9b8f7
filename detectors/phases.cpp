#include "detectors/phases.h"

namespace syncscope {

const char* step_source_name(StepSource s) {
  switch (s) {
    case StepSource::kOptimizerStep:
      return "optimizer-step";
    case StepSource::kBackward:
      return "backward";
    case StepSource::kPattern:
      return "pattern";
    case StepSource::kTime:
      return "time";
  }
  return "?";
}

}  // namespace syncscope
