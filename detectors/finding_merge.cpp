#include "detectors/finding_merge.h"

#include <algorithm>
#include <cmath>

#include "detectors/finding_rank.h"

namespace syncscope {
namespace {

void copy_prediction(Finding& into, const Finding& from) {
  into.predicted = from.predicted;
  into.prediction_measured = from.prediction_measured;
  into.predicted_fix = from.predicted_fix;
  into.predicted_dropped_operations = from.predicted_dropped_operations;
  into.prediction_floor = from.prediction_floor;
  into.prediction_ceiling = from.prediction_ceiling;
  into.saving_ns_per_step_low = from.saving_ns_per_step_low;
  into.saving_ns_per_step_high = from.saving_ns_per_step_high;
  into.step_ns_without_low = from.step_ns_without_low;
  into.step_ns_without_high = from.step_ns_without_high;
  into.replayed_step_ns = from.replayed_step_ns;
  into.prediction_step_ns = from.prediction_step_ns;
}

}  // namespace

uint64_t median_step_gap(const std::vector<FindingStepCount>& steps) {
  if (steps.size() < 2) return 0;
  std::vector<uint32_t> gaps;
  for (size_t k = 1; k < steps.size(); ++k) gaps.push_back(steps[k].step - steps[k - 1].step);
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<long>(gaps.size() / 2), gaps.end());
  return gaps[gaps.size() / 2];
}

uint64_t periodic_every(const std::vector<FindingStepCount>& steps, uint64_t steps_with, uint64_t phase_steps) {
  const double n = static_cast<double>(phase_steps);
  if (steps_with < 2 || static_cast<double>(steps_with) >= kPeriodicShare * n) return 0;
  const uint64_t gap = median_step_gap(steps);
  return gap > 0 ? gap : static_cast<uint64_t>(std::llround(n / static_cast<double>(steps_with)));
}

void merge_finding(Finding& into, const Finding& other, uint64_t phase_steps) {
  into.count += other.count;
  into.per_step += other.per_step;
  into.host_blocked_ns += other.host_blocked_ns;
  into.blocked_ns_per_step += other.blocked_ns_per_step;
  into.step_share += other.step_share;
  into.bytes += other.bytes;
  into.severity += other.severity;
  into.gpu_measured = into.gpu_measured || other.gpu_measured;
  into.gpu_idle_ns += other.gpu_idle_ns;
  into.gpu_idle_ns_per_step += other.gpu_idle_ns_per_step;
  into.gpu_idle_share += other.gpu_idle_share;
  into.gpu_copy_ns += other.gpu_copy_ns;
  into.gpu_copy_overlap_ns += other.gpu_copy_overlap_ns;
  into.gpu_serialized_ns_per_step += other.gpu_serialized_ns_per_step;
  // Savings do not add up: the parts' waits overlap (fixing one lets the
  // next wait longer), so the merged line keeps its largest part's
  // prediction, what fixing the line saves at least (docs/what-if.md).
  if (other.predicted && (!into.predicted || saving_share_mid(other) > saving_share_mid(into))) {
    copy_prediction(into, other);
  }

  std::vector<FindingStepCount> steps;
  steps.reserve(into.step_counts.size() + other.step_counts.size());
  std::merge(into.step_counts.begin(), into.step_counts.end(), other.step_counts.begin(), other.step_counts.end(),
             std::back_inserter(steps),
             [](const FindingStepCount& a, const FindingStepCount& b) { return a.step < b.step; });
  std::vector<FindingStepCount> by_step;
  for (const FindingStepCount& s : steps) {
    if (!by_step.empty() && by_step.back().step == s.step) {
      by_step.back().count += s.count;
      by_step.back().blocked_ns += s.blocked_ns;
    } else {
      by_step.push_back(s);
    }
  }
  // Steps kept are the steps it occurred in; a finding whose steps were not
  // all kept (a long windowed trace) can only say at least the larger count.
  const uint64_t kept_into = into.step_counts.size(), kept_other = other.step_counts.size();
  const bool all_kept = kept_into == into.steps_with && kept_other == other.steps_with;
  into.steps_with =
      all_kept ? by_step.size() : std::max<uint64_t>(by_step.size(), std::max(into.steps_with, other.steps_with));
  if (phase_steps > 0) into.steps_with = std::min<uint64_t>(into.steps_with, phase_steps);
  into.step_counts = std::move(by_step);
  into.every_n_steps = phase_steps > 0 ? periodic_every(into.step_counts, into.steps_with, phase_steps) : 0;

  std::vector<FindingOccurrence> occurrences;
  std::merge(into.occurrences.begin(), into.occurrences.end(), other.occurrences.begin(), other.occurrences.end(),
             std::back_inserter(occurrences),
             [](const FindingOccurrence& a, const FindingOccurrence& b) { return a.start_ns < b.start_ns; });
  if (occurrences.size() > kMaxFindingOccurrences) occurrences.resize(kMaxFindingOccurrences);
  into.occurrences = std::move(occurrences);
}

void set_per_step_figures(Finding& f, uint64_t phase_steps, double step_ns) {
  const double n = static_cast<double>(phase_steps);
  f.per_step = static_cast<double>(f.count) / n;
  f.blocked_ns_per_step = static_cast<double>(f.host_blocked_ns) / n;
  f.step_share = step_ns > 0 ? f.blocked_ns_per_step / step_ns : 0;
  // Periodic: the median spacing of the steps it occurred in.
  f.every_n_steps = periodic_every(f.step_counts, f.steps_with, phase_steps);
}

}  // namespace syncscope
