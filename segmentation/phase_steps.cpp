#include "segmentation/phase_steps.h"

#include "segmentation/call_tokens.h"

namespace syncscope::segmentation {
namespace {

// info's step time (the mean) and median from the steps' times.
void set_step_times(const std::vector<double>& lengths, PhaseInfo& info) {
  info.median_step_ns = median(lengths);
  double total = 0;
  for (double l : lengths) total += l;
  info.step_ns = lengths.empty() ? 0 : total / static_cast<double>(lengths.size());
}

// Steps much longer than the median of `spans` (each step's whole span: an
// eval pass inside one interrupts it, though it is the eval phase's time).
uint64_t interrupted(const std::vector<double>& spans) {
  if (spans.size() < kMinStepsToJudgeInterrupted) return 0;
  const double typical = median(spans);
  uint64_t n = 0;
  for (double l : spans) n += l > kInterruptedFactor * typical;
  return n;
}

// The time the stretches (sorted, merged) cover before t.
class Covered {
 public:
  explicit Covered(std::vector<std::pair<uint64_t, uint64_t>> spans) {
    std::sort(spans.begin(), spans.end());
    for (const auto& [b, e] : spans) {
      if (e <= b) continue;
      if (!spans_.empty() && b <= spans_.back().second) {
        spans_.back().second = std::max(spans_.back().second, e);
      } else {
        spans_.emplace_back(b, e);
      }
    }
    before_.reserve(spans_.size());
    uint64_t sum = 0;
    for (const auto& [b, e] : spans_) before_.push_back(sum), sum += e - b;
  }
  uint64_t before(uint64_t t) const {
    auto it = std::upper_bound(spans_.begin(), spans_.end(), t,
                               [](uint64_t x, const std::pair<uint64_t, uint64_t>& s) { return x < s.first; });
    if (it == spans_.begin()) return 0;
    const size_t i = static_cast<size_t>(it - spans_.begin()) - 1;
    return before_[i] + std::min(t, spans_[i].second) - spans_[i].first;
  }

 private:
  std::vector<std::pair<uint64_t, uint64_t>> spans_;
  std::vector<uint64_t> before_;
};

}  // namespace

void finish_phase(PhaseSteps& phase) {
  std::vector<double> lengths;
  for (size_t k = 0; k < phase.steps.size(); ++k) {
    lengths.push_back(static_cast<double>(phase.steps.ends[k] - phase.steps.starts[k]));
  }
  phase.info.steps = phase.steps.size();
  set_step_times(lengths, phase.info);
  phase.info.interrupted_steps = interrupted(lengths);
  phase.info.start_ns = phase.steps.starts.empty() ? 0 : phase.steps.starts.front();
  phase.info.end_ns = phase.steps.ends.empty() ? 0 : phase.steps.ends.back();
}

void time_to_next_step(PhaseSteps& main, std::vector<std::pair<uint64_t, uint64_t>> others) {
  const Covered covered(std::move(others));
  const Steps& steps = main.steps;
  std::vector<double> lengths, spans;
  for (size_t k = 0; k < steps.size(); ++k) {
    const uint64_t start = steps.starts[k];
    const uint64_t end = k + 1 < steps.size() ? std::max(steps.starts[k + 1], start) : steps.ends[k];
    const uint64_t other = covered.before(end) - covered.before(start);
    spans.push_back(static_cast<double>(end - start));
    lengths.push_back(static_cast<double>(end - start - std::min(other, end - start)));
  }
  set_step_times(lengths, main.info);
  main.info.interrupted_steps = interrupted(spans);
}

}  // namespace syncscope::segmentation
