#include "detectors/segmentation/phase_steps.h"

#include "detectors/segmentation/call_tokens.h"

namespace syncscope::segmentation {

void finish_phase(PhaseSteps& phase) {
  std::vector<double> lengths;
  for (size_t k = 0; k < phase.steps.size(); ++k) {
    lengths.push_back(static_cast<double>(phase.steps.ends[k] - phase.steps.starts[k]));
  }
  phase.info.steps = phase.steps.size();
  phase.info.step_ns = median(lengths);
  double total = 0;
  for (double l : lengths) total += l;
  phase.info.mean_step_ns = lengths.empty() ? 0 : total / static_cast<double>(lengths.size());
  phase.info.start_ns = phase.steps.starts.empty() ? 0 : phase.steps.starts.front();
  phase.info.end_ns = phase.steps.ends.empty() ? 0 : phase.steps.ends.back();
  phase.info.interrupted_steps = 0;
  if (lengths.size() >= kMinStepsToJudgeInterrupted) {
    for (double l : lengths) phase.info.interrupted_steps += l > kInterruptedFactor * phase.info.step_ns;
  }
}

}  // namespace syncscope::segmentation
