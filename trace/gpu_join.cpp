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

bool gpu_window_covers(const std::vector<std::pair<uint64_t, uint64_t>>& windows, uint64_t start_ns,
                       uint64_t end_ns) {
  if (windows.empty()) return true;
  // The last window opening at or before start_ns.
  auto after = std::upper_bound(windows.begin(), windows.end(), start_ns,
                                [](uint64_t t, const std::pair<uint64_t, uint64_t>& w) { return t < w.first; });
  if (after == windows.begin()) return false;
  --after;
  return end_ns <= after->second;
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

bool issues_gpu_work(const Event& e) {
  if (e.flags & kFlagCapturing) return false;  // recorded into a graph: runs at the graph's launch
  return api_issues_gpu_work(e.api);
}

// Whether the record of work `a` can be the work of call `e`: its kind fits,
// a copy or memset moved the call's bytes, and it did not start before the
// call did.
bool work_fits_call(const GpuActivity& a, const Event& e) {
  if (!gpu_kind_fits_api(a.kind, e.api)) return false;
  if (a.start_ns + kGpuJoinSlackNs < e.start_ns) return false;
  if (api_family(e.api) == ApiFamily::kGraphLaunch) return true;
  if (a.kind == static_cast<uint8_t>(GpuKind::kMemcpy) || a.kind == static_cast<uint8_t>(GpuKind::kMemset)) {
    return e.bytes == 0 || a.bytes == e.bytes;
  }
  return true;
}

// Without API records (CUPTI gave none), records of work join by issue
// order: CUPTI numbers calls in the order they begin, and the recorded calls
// that issue work are in that order by start. Each group of records sharing
// a correlation id (a graph's nodes: one call) takes the first fitting call
// among the next kOrderWindow unmatched ones; a record that fits none (work
// from a call not recorded: a library's own launch) stays unjoined and
// moves nothing, so one missing call cannot shift the rest.
constexpr size_t kOrderWindow = 32;

void join_by_issue_order(ProcessTrace& trace) {
  std::vector<size_t> work_calls;
  for (size_t i = 0; i < trace.events.size(); ++i) {
    const Event& e = trace.events[i];
    if (issues_gpu_work(e) && gpu_window_covers(trace.gpu_windows, e.start_ns, e.start_ns)) work_calls.push_back(i);
  }
  std::vector<GpuActivity*> records;
  for (GpuActivity& a : trace.gpu_activity) {
    if (a.event_index < 0 && a.kind != static_cast<uint8_t>(GpuKind::kSync) && a.correlation_id != 0) {
      records.push_back(&a);
    }
  }
  std::stable_sort(records.begin(), records.end(),
                   [](const GpuActivity* a, const GpuActivity* b) { return a->correlation_id < b->correlation_id; });
  std::vector<bool> taken(work_calls.size(), false);
  size_t next = 0;  // first call not yet taken
  for (size_t r = 0; r < records.size();) {
    size_t group_end = r + 1;
    while (group_end < records.size() && records[group_end]->correlation_id == records[r]->correlation_id) ++group_end;
    const GpuActivity& first = *records[r];
    for (size_t c = next; c < work_calls.size() && c < next + kOrderWindow; ++c) {
      if (taken[c] || !work_fits_call(first, trace.events[work_calls[c]])) continue;
      for (size_t g = r; g < group_end; ++g) records[g]->event_index = static_cast<int64_t>(work_calls[c]);
      taken[c] = true;
      while (next < taken.size() && taken[next]) ++next;  // calls skipped stay available to later records
      break;
    }
    r = group_end;
  }
}

// Work whose API record is missing while others have theirs: CUPTI writes a
// call's API record at its exit, so a launch under way when a sampling
// window's kinds go off leaves its kernel record without one. Correlation
// ids count calls as they begin (any thread): the call is the first
// unjoined call that fits after the call of the nearest lower id that did
// join, and before the call of the nearest higher one.
constexpr size_t kOrphanLookahead = 64;

void join_orphans_by_neighbours(ProcessTrace& trace) {
  std::vector<const GpuActivity*> joined;
  std::vector<GpuActivity*> orphans;
  std::vector<bool> taken(trace.events.size(), false);
  for (GpuActivity& a : trace.gpu_activity) {
    if (a.kind == static_cast<uint8_t>(GpuKind::kSync) || a.correlation_id == 0) continue;
    if (a.event_index >= 0) {
      joined.push_back(&a);
      taken[a.event_index] = true;
    } else {
      orphans.push_back(&a);
    }
  }
  if (orphans.empty() || joined.empty()) return;
  auto by_id = [](const GpuActivity* a, const GpuActivity* b) { return a->correlation_id < b->correlation_id; };
  std::sort(joined.begin(), joined.end(), by_id);
  std::stable_sort(orphans.begin(), orphans.end(), by_id);
  for (GpuActivity* a : orphans) {
    auto higher = std::upper_bound(joined.begin(), joined.end(), a, by_id);
    if (higher == joined.begin()) continue;  // nothing earlier to count from
    const size_t from = static_cast<size_t>((*std::prev(higher))->event_index) + 1;
    const uint64_t before_ns = higher == joined.end() ? ~0ull : trace.events[(*higher)->event_index].start_ns;
    for (size_t i = from; i < trace.events.size() && i < from + kOrphanLookahead; ++i) {
      const Event& e = trace.events[i];
      if (e.start_ns > before_ns) break;
      if (taken[i] || !issues_gpu_work(e) || !work_fits_call(*a, e)) continue;
      a->event_index = static_cast<int64_t>(i);
      // Records sharing the id (a graph's nodes) follow it.
      for (GpuActivity* same : orphans) {
        if (same->correlation_id == a->correlation_id) same->event_index = a->event_index;
      }
      taken[i] = true;
      break;
    }
  }
}

// Sync records carry no thread: the sync call whose span holds the record's
// midpoint, on any thread.
void join_syncs_by_time(ProcessTrace& trace) {
  for (GpuActivity& a : trace.gpu_activity) {
    if (a.event_index >= 0 || a.kind != static_cast<uint8_t>(GpuKind::kSync)) continue;
    const uint64_t mid = a.start_ns + (a.end_ns - a.start_ns) / 2;
    auto after = std::upper_bound(trace.events.begin(), trace.events.end(), mid,
                                  [](uint64_t t, const Event& e) { return t < e.start_ns; });
    int tries = 0;
    for (auto it = after; it != trace.events.begin() && tries < 64; ++tries) {
      --it;
      if (it->end_ns + kGpuJoinSlackNs < mid || !gpu_kind_fits_api(a.kind, it->api)) continue;
      a.event_index = it - trace.events.begin();
      break;
    }
  }
}

}  // namespace

void join_gpu_activity(ProcessTrace& trace) {
  auto by_start = [](const GpuRecord& a, const GpuRecord& b) { return a.start_ns < b.start_ns; };
  std::stable_sort(trace.gpu_activity.begin(), trace.gpu_activity.end(), by_start);
  std::stable_sort(trace.gpu_api.begin(), trace.gpu_api.end(), by_start);
  std::sort(trace.gpu_windows.begin(), trace.gpu_windows.end());
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
  if (trace.gpu_api.empty()) {  // CUPTI gave no API records (or was asked for none)
    join_by_issue_order(trace);
    join_syncs_by_time(trace);
  } else {
    join_orphans_by_neighbours(trace);
  }
  for (GpuActivity& a : trace.gpu_activity) {
    if (a.event_index < 0 || a.stream != GpuActivity::kNoStream || a.kind == static_cast<uint8_t>(GpuKind::kSync)) {
      continue;
    }
    a.stream = trace.events[a.event_index].stream;
    if (a.stream_id != 0) stream_of_id.emplace(a.stream_id, a.stream);
  }
  for (GpuActivity& a : trace.gpu_activity) {
    if (a.stream != GpuActivity::kNoStream || a.stream_id == 0) continue;
    auto it = stream_of_id.find(a.stream_id);
    if (it != stream_of_id.end()) a.stream = it->second;
  }
}

}  // namespace syncscope
