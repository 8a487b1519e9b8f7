#include "detectors/site_aggregator.h"

#include <algorithm>
#include <cmath>

#include "detectors/finding_merge.h"

namespace syncscope {

void SiteAggregator::add(const Event& anchor, const std::string& api, const std::string& sequence, Cause cause,
                         uint64_t blocked_ns, uint64_t bytes, uint64_t calls) {
  const size_t i = seg_.index_of(anchor);
  const EventPlace& place = seg_.places[i];
  const Segmentation::Waiter waited_by = seg_.waiter_of(i);
  const uint32_t waiter = waited_by.stack;
  auto key = std::make_tuple(static_cast<int>(place.phase), int{place.phase_index}, anchor.stack_id, waiter, sequence,
                             std::string_view(cause_name(cause)));
  Site& site = sites_[key];
  Finding& f = site.finding;
  if (f.count == 0) {
    f.category = category_;
    f.phase = place.phase;
    f.phase_index = place.phase == Phase::kSteady ? place.phase_index : -1;
    f.api = api;
    f.api_sequence = sequence;
    f.cause = cause;
    f.stack_id = anchor.stack_id;
    f.tid = anchor.tid;
    f.waiter_stack_id = waiter;
    f.waiter_tid = waited_by.tid;
  }
  f.count += calls;
  f.host_blocked_ns += blocked_ns;
  if (!seg_.gpu_cost.empty()) {
    const EventGpuCost& cost = seg_.gpu_cost[i];
    f.gpu_measured = true;
    f.gpu_idle_ns += cost.idle_ns;
    f.gpu_copy_ns += cost.copy_ns;
    f.gpu_copy_overlap_ns += cost.copy_overlap_ns;
  }
  f.bytes += bytes;
  if (f.step_counts.empty() || f.step_counts.back().step != place.step) f.step_counts.push_back({place.step, 0, 0});
  f.step_counts.back().count += static_cast<uint32_t>(calls);
  f.step_counts.back().blocked_ns += blocked_ns;
  if (f.occurrences.size() < kMaxFindingOccurrences) f.occurrences.push_back({anchor.start_ns, anchor.end_ns});
}

void SiteAggregator::complete(Finding& f) const {
  const PhaseInfo* phase = f.phase_index >= 0 && static_cast<size_t>(f.phase_index) < seg_.phases.size()
                               ? &seg_.phases[f.phase_index]
                               : nullptr;
  const bool per_step = phase != nullptr && phase->steps > 0 && f.phase == Phase::kSteady;
  if (per_step) {
    const double step_ns = phase->step_ns;
    f.steps_with = f.step_counts.size();
    set_per_step_figures(f, phase->steps, step_ns);
    // GPU figures per step of those measured: under a sampled timeline only
    // the steps inside a window (none inside: no GPU figures at all).
    const uint64_t gpu_n = seg_.gpu_steps(f.phase_index);
    if (gpu_n == 0) f.gpu_measured = false;
    if (f.gpu_measured) {
      f.gpu_idle_ns_per_step = static_cast<double>(f.gpu_idle_ns) / static_cast<double>(gpu_n);
      if (step_ns > 0) f.gpu_idle_share = f.gpu_idle_ns_per_step / step_ns;
    }
  }
  // Severity: the share of step time lost; without steps, of the steady run.
  double span = static_cast<double>(
      seg_.main.steady_end_ns > seg_.main.steady_start_ns ? seg_.main.steady_end_ns - seg_.main.steady_start_ns : 1);
  f.severity = per_step ? f.step_share : static_cast<double>(f.host_blocked_ns) / span;
  // With a GPU timeline, the larger of the host's loss and the GPU's.
  if (f.gpu_measured) {
    f.severity = std::max(f.severity, per_step ? f.gpu_idle_share : static_cast<double>(f.gpu_idle_ns) / span);
  }
  if (f.phase != Phase::kSteady) f.severity *= 0.1;  // listed apart, ranked lower
  // Outside steady state "step" means nothing: every event there has step 0.
  if (!per_step) f.step_counts.clear();
}

}  // namespace syncscope
