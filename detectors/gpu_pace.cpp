#include "detectors/gpu_pace.h"

#include <algorithm>

#include "trace/gpu_record.h"

namespace syncscope {

uint64_t gpu_backlog_at(const ProcessTrace& trace, uint64_t t) {
  uint64_t done = 0;
  for (const GpuActivity& a : trace.gpu_activity) {
    if (!gpu_kind_is_work(a.kind) || a.event_index < 0 ||
        static_cast<size_t>(a.event_index) >= trace.events.size()) {
      continue;
    }
    if (trace.events[static_cast<size_t>(a.event_index)].start_ns < t) done = std::max(done, a.end_ns);
  }
  return done > t ? done - t : 0;
}

void set_gpu_paced_steps(const ProcessTrace& trace, std::vector<PhaseInfo>* phases) {
  // Only a full timeline times every call's work: with a sampled one the
  // backlog is known in its windows alone.
  if (!trace.gpu_windows.empty() || trace.gpu_activity.empty()) return;
  for (PhaseInfo& phase : *phases) {
    if (phase.steps == 0 || phase.end_ns <= phase.start_ns || phase.step_ns <= 0) continue;
    const double growth = static_cast<double>(gpu_backlog_at(trace, phase.end_ns)) -
                          static_cast<double>(gpu_backlog_at(trace, phase.start_ns));
    phase.gpu_paced_step_ns = std::max(0.0, phase.step_ns + growth / static_cast<double>(phase.steps));
  }
}

}  // namespace syncscope
