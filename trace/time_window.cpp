#include "trace/time_window.h"

#include <utility>
#include <vector>

namespace syncscope {

void restrict_to_stretch(ProcessTrace& trace, uint64_t start_ns, uint64_t end_ns) {
  auto inside = [&](uint64_t t) { return t >= start_ns && t <= end_ns; };
  std::vector<int64_t> new_index(trace.events.size(), -1);
  std::vector<Event> kept;
  for (size_t i = 0; i < trace.events.size(); ++i) {
    if (!inside(trace.events[i].start_ns)) continue;
    new_index[i] = static_cast<int64_t>(kept.size());
    kept.push_back(trace.events[i]);
  }
  trace.events = std::move(kept);

  std::vector<GpuActivity> activity;
  for (GpuActivity a : trace.gpu_activity) {
    if (a.event_index >= 0) {
      // Work of a call outside the stretch is that call's.
      if (static_cast<size_t>(a.event_index) >= new_index.size() || new_index[a.event_index] < 0) continue;
      a.event_index = new_index[a.event_index];
    } else if (!inside(a.start_ns)) {
      continue;
    }
    activity.push_back(a);
  }
  trace.gpu_activity = std::move(activity);

  std::vector<GpuRecord> api;
  for (const GpuRecord& r : trace.gpu_api) {
    if (inside(r.start_ns)) api.push_back(r);
  }
  trace.gpu_api = std::move(api);
}

}  // namespace syncscope
