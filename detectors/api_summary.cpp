#include "detectors/api_summary.h"

#include <algorithm>
#include <unordered_map>

#include "trace/api.h"

namespace syncscope {

ApiSummary summarize(const ProcessTrace& trace) {
  ApiSummary summary;
  std::unordered_map<uint16_t, ApiStats> apis;
  std::unordered_map<uint32_t, StackStats> stacks;
  uint64_t first = UINT64_MAX, last = 0;
  uint64_t calls = 0;
  for (const Event& e : trace.events) {
    // syncscope's own markers (optimizer steps, GIL waits, NVTX ranges) are
    // not CUDA calls: neither counted nor timed as such.
    if (api_family(e.api) == ApiFamily::kMarker) continue;
    // A folded run (trace/event.h) counts as the launches it stands for; its
    // longest launch is taken as their mean.
    const uint64_t n = calls_of(e);
    calls += n;
    const uint64_t ns = host_ns_of(e);
    ApiStats& a = apis[e.api];
    a.api = e.api;
    a.calls += n;
    a.total_ns += ns;
    a.max_ns = std::max(a.max_ns, n > 1 ? ns / n : ns);
    a.bytes += api_family(e.api) == ApiFamily::kStreamCreate ? 0 : bytes_of(e);  // creation flags, not bytes
    a.errors += (e.flags & kFlagError) != 0 ? n : 0;
    if (e.direction != static_cast<uint8_t>(Direction::kNone)) {
      ++a.copies_by_direction[e.direction];
      ++a.copies_by_host_mem[e.host_mem];
    }
    a.streams.insert(e.stream);
    if (e.stack_id != 0) {
      StackStats& s = stacks[e.stack_id];
      s.stack_id = e.stack_id;
      ++s.calls;
      s.total_ns += ns;
      s.apis.insert(e.api);
    }
    ApiFamily family = api_family(e.api);
    summary.launches += family == ApiFamily::kLaunch || family == ApiFamily::kGraphLaunch ? n : 0;
    summary.host_ns_in_cuda += ns;
    first = std::min(first, e.start_ns);
    last = std::max(last, e.end_ns);
  }
  summary.events = calls;
  summary.wall_ns = last > first ? last - first : 0;
  summary.events_dropped = trace.events_dropped;
  for (auto& [id, a] : apis) summary.apis.push_back(std::move(a));
  for (auto& [id, s] : stacks) summary.stacks.push_back(std::move(s));
  std::sort(summary.apis.begin(), summary.apis.end(), [](const ApiStats& x, const ApiStats& y) {
    return x.total_ns != y.total_ns ? x.total_ns > y.total_ns : x.api < y.api;
  });
  std::sort(summary.stacks.begin(), summary.stacks.end(), [](const StackStats& x, const StackStats& y) {
    return x.total_ns != y.total_ns ? x.total_ns > y.total_ns : x.stack_id < y.stack_id;
  });
  return summary;
}

}  // namespace syncscope
