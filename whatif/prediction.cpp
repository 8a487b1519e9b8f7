#include "whatif/prediction.h"

#include <algorithm>
#include <cmath>

namespace syncscope::whatif {
namespace {

double mean_step(const std::vector<uint64_t>& ends, uint32_t first, uint32_t last) {
  Replay r;
  r.step_end_ns = ends;
  return r.mean_step_ns(first, last);
}

}  // namespace

const char* basis_name(Basis basis) { return basis == Basis::kMeasured ? "measured" : "host-bound"; }

double Prediction::replay_error() const {
  return recorded_step_ns > 0 ? std::fabs(replayed_step_ns - recorded_step_ns) / recorded_step_ns : 0;
}

bool Prediction::fits() const { return replay_error() <= kMaxReplayError; }

std::vector<uint64_t> recorded_step_ends(const Program& program) {
  std::vector<uint64_t> ends;
  uint64_t t = 0, gpu_done = 0;
  for (const Op& op : program.ops) {
    t += op.host_before_ns + op.call_ns + op.waited_ns + op.after_ns;
    gpu_done = std::max(gpu_done, op.recorded_gpu_end_ns);
    if (ends.size() <= op.step) ends.resize(op.step + 1, ends.empty() ? 0 : ends.back());
    ends[op.step] = std::max(t, gpu_done);
  }
  return ends;
}

Baseline baseline(const Program& recorded, uint32_t first, uint32_t last, bool gpu_measured) {
  Baseline b;
  b.basis = gpu_measured ? Basis::kMeasured : Basis::kHostBound;
  b.first = first;
  b.last = last;
  b.recorded_step_ns = mean_step(recorded_step_ends(recorded), first, last);
  // Each base keeps, as host work, the part of a waiting call that its GPU
  // times do not explain (with_unexplained_time_in_calls).
  if (gpu_measured) {
    b.bases.push_back(with_unexplained_time_in_calls(recorded));
  } else {
    b.bases.push_back(with_unexplained_time_in_calls(with_estimated_gpu_time(recorded, GpuBound::kLow)));
    b.bases.push_back(with_unexplained_time_in_calls(with_estimated_gpu_time(recorded, GpuBound::kHigh)));
  }
  for (const Program& base : b.bases) b.before_ns.push_back(replay(base).mean_step_ns(first, last));
  return b;
}

Prediction predict(const Baseline& baseline, const std::vector<SiteFix>& fixes, const OpMarks* marks) {
  Prediction p;
  p.basis = baseline.basis;
  p.recorded_step_ns = baseline.recorded_step_ns;
  bool any = false;
  for (size_t b = 0; b < baseline.bases.size(); ++b) {
    const double before = baseline.before_ns[b];
    const double after =
        replay(apply_fixes(baseline.bases[b], fixes, marks)).mean_step_ns(baseline.first, baseline.last);
    const double saving = before - after;
    if (!any) {
      p.replayed_step_ns = before;
      p.step_without_low_ns = p.step_without_high_ns = after;
      p.saving_low_ns = p.saving_high_ns = saving;
      any = true;
      continue;
    }
    // Both bounds replay the recorded waits: the farther from the recording
    // is the model's error.
    if (std::fabs(before - p.recorded_step_ns) > std::fabs(p.replayed_step_ns - p.recorded_step_ns)) {
      p.replayed_step_ns = before;
    }
    p.step_without_low_ns = std::min(p.step_without_low_ns, after);
    p.step_without_high_ns = std::max(p.step_without_high_ns, after);
    p.saving_low_ns = std::min(p.saving_low_ns, saving);
    p.saving_high_ns = std::max(p.saving_high_ns, saving);
  }
  return p;
}

Prediction predict(const Program& recorded, const std::vector<SiteFix>& fixes, uint32_t first, uint32_t last,
                   bool gpu_measured) {
  return predict(baseline(recorded, first, last, gpu_measured), fixes);
}

}  // namespace syncscope::whatif
