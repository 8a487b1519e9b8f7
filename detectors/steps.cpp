#include "detectors/steps.h"

#include "detectors/segmentation.h"

namespace syncscope {

StepInfo detect_steps(const std::vector<Event>& events, const StepOptions& options) {
  return segment_run(events, options).main;
}

}  // namespace syncscope
