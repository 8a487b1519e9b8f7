#include "trace/gpu_join.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "trace/api.h"

namespace syncscope {

bool gpu_kind_fits_api(uint8_t gpu_kind, uint16_t api) {
  ApiFamily family = api_family(api);
  if (family == ApiFamily::kGraphLaunch) return gpu_kind != static_cast<uint8_t>(GpuKind::kSync);
  switch (static_cast<GpuKind>(gpu_kind)) {
    case GpuKind::kKernel:
      return family == ApiFamily::kLaunch;
    case GpuKind::kMemcpy:
      return family == ApiFamily::kCopy;
    case GpuKind::kMemset:
      return family == ApiFamily::kMemset;
    case GpuKind::kSync:
      // Synchronous copies, memsets and frees wait too.
      return family == ApiFamily::kSync || family == ApiFamily::kStreamWait || family == ApiFamily::kCopy ||
             family == ApiFamily::kMemset || family == ApiFamily::kFree;
    default:
      return false;
  }
}

namespace {

// The event on `tid` containing [start, end] whose family fits, or -1.
// Events of one thread do not overlap (the re-entrancy guard), but markers
// (GIL waits) span others: walk back over a few candidates. Each end may
// stick out by the slack; the call's midpoint must lie inside the event; the
// least overshoot wins.
int64_t find_event(const ProcessTrace& trace, const std::vector<int64_t>& on_thread, const GpuRecord& api,
                   uint8_t gpu_kind) {
  auto after = std::upper_bound(on_thread.begin(), on_thread.end(), api.start_ns + kGpuJoinSlackNs,
                                [&](uint64_t t, int64_t i) { return t < trace.events[i].start_ns; });
  const uint64_t mid = api.start_ns + (api.end_ns - api.start_ns) / 2;
  int64_t best = -1;
  uint64_t best_overshoot = ~0ull;
  int tries = 0;
  for (auto it = after; it != on_thread.begin() && tries < 16; ++tries) {
    --it;
    const Event& e = trace.events[*it];
    if (e.end_ns + kGpuJoinSlackNs < api.end_ns || mid < e.start_ns || mid > e.end_ns) continue;
    if (!gpu_kind_fits_api(gpu_kind, e.api)) continue;
    uint64_t overshoot = (e.start_ns > api.start_ns ? e.start_ns - api.start_ns : 0) +
                         (api.end_ns > e.end_ns ? api.end_ns - e.end_ns : 0);
    if (overshoot < best_overshoot) {
      best = *it;
      best_overshoot = overshoot;
      if (overshoot == 0) break;
    }
  }
  return best;
}

}  // namespace

void join_gpu_activity(ProcessTrace& trace) {
  auto by_start = [](const GpuRecord& a, const GpuRecord& b) { return a.start_ns < b.start_ns; };
  std::stable_sort(trace.gpu_activity.begin(), trace.gpu_activity.end(), by_start);
  std::stable_sort(trace.gpu_api.begin(), trace.gpu_api.end(), by_start);
  if (trace.gpu_activity.empty()) return;

  std::unordered_map<uint32_t, const GpuRecord*> api_by_correlation;
  for (const GpuRecord& api : trace.gpu_api) {
    auto [it, inserted] = api_by_correlation.emplace(api.correlation_id, &api);
    // The runtime call is the outer one: prefer it to a driver record.
    if (!inserted && api.kind == static_cast<uint8_t>(GpuKind::kRuntimeApi)) it->second = &api;
  }
  std::unordered_map<uint32_t, std::vector<int64_t>> events_by_tid;
  for (size_t i = 0; i < trace.events.size(); ++i) {
    events_by_tid[trace.events[i].tid].push_back(static_cast<int64_t>(i));
  }
  // (correlation id, kind) -> event: a graph launch has many records.
  std::unordered_map<uint64_t, int64_t> memo;
  std::unordered_map<uint32_t, uint64_t> stream_of_id;  // CUPTI stream id -> handle, from joined records
  for (GpuActivity& a : trace.gpu_activity) {
    a.event_index = -1;
    auto api = api_by_correlation.find(a.correlation_id);
    if (api == api_by_correlation.end()) continue;
    uint64_t key = (uint64_t{a.correlation_id} << 8) | a.kind;
    auto known = memo.find(key);
    if (known != memo.end()) {
      a.event_index = known->second;
    } else {
      auto thread = events_by_tid.find(api->second->tid);
      if (thread != events_by_tid.end()) a.event_index = find_event(trace, thread->second, *api->second, a.kind);
      memo.emplace(key, a.event_index);
    }
    if (a.event_index >= 0 && a.kind != static_cast<uint8_t>(GpuKind::kSync)) {
      a.stream = trace.events[a.event_index].stream;
      if (a.stream_id != 0) stream_of_id.emplace(a.stream_id, a.stream);
    }
  }
  for (GpuActivity& a : trace.gpu_activity) {
    if (a.stream != GpuActivity::kNoStream || a.stream_id == 0) continue;
    auto it = stream_of_id.find(a.stream_id);
    if (it != stream_of_id.end()) a.stream = it->second;
  }
}

}  // namespace syncscope
