#include "detectors/site_aggregator.h"

namespace syncscope {

void SiteAggregator::add(const Event& anchor, const std::string& api, const std::string& sequence,
                         const std::string& cause, uint64_t blocked_ns, uint64_t bytes) {
  Phase phase = anchor.start_ns < steps_.steady_start_ns ? Phase::kWarmup
                : anchor.start_ns < steps_.steady_end_ns  ? Phase::kSteady
                                                          : Phase::kTeardown;
  auto key = std::make_tuple(static_cast<int>(phase), anchor.stack_id, sequence, cause);
  Finding& f = findings_[key];
  if (f.count == 0) {
    f.category = category_;
    f.phase = phase;
    f.api = api;
    f.api_sequence = sequence;
    f.cause = cause;
    f.stack_id = anchor.stack_id;
    f.tid = anchor.tid;
  }
  ++f.count;
  f.host_blocked_ns += blocked_ns;
  f.bytes += bytes;
}

void SiteAggregator::complete(Finding& f) const {
  const bool per_step = steps_.detected && steps_.steps > 0 && f.phase == Phase::kSteady;
  if (per_step) {
    f.per_step = static_cast<double>(f.count) / static_cast<double>(steps_.steps);
    f.blocked_ns_per_step = static_cast<double>(f.host_blocked_ns) / static_cast<double>(steps_.steps);
    if (steps_.step_ns > 0) f.step_share = f.blocked_ns_per_step / steps_.step_ns;
  }
  // Severity: the share of step time lost; without steps, of the steady run.
  double span = static_cast<double>(steps_.steady_end_ns > steps_.steady_start_ns
                                        ? steps_.steady_end_ns - steps_.steady_start_ns
                                        : 1);
  f.severity = per_step ? f.step_share : static_cast<double>(f.host_blocked_ns) / span;
  if (f.phase != Phase::kSteady) f.severity *= 0.1;  // listed apart, ranked lower
}

}  // namespace syncscope
