#include "detectors/api_summary.h"

#include <algorithm>
#include <unordered_map>

#include "trace/api.h"

namespace syncscope {

void ApiSummaryBuilder::add(const Event& e) {
  // syncscope's own markers (optimizer steps, GIL waits, NVTX ranges) are
  // not CUDA calls: neither counted nor timed as such.
  if (api_family(e.api) == ApiFamily::kMarker) return;
  // A folded run (trace/event.h) counts as the launches it stands for; its
  // longest launch is taken as their mean.
  const uint64_t n = calls_of(e);
  calls_ += n;
  const uint64_t ns = host_ns_of(e);
  ApiStats& a = apis_[e.api];
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
    StackStats& s = stacks_[e.stack_id];
    s.stack_id = e.stack_id;
    ++s.calls;
    s.total_ns += ns;
    s.apis.insert(e.api);
  }
  ApiFamily family = api_family(e.api);
  launches_ += family == ApiFamily::kLaunch || family == ApiFamily::kGraphLaunch ? n : 0;
  host_ns_ += ns;
  first_ = std::min(first_, e.start_ns);
  last_ = std::max(last_, e.end_ns);
}

ApiSummary ApiSummaryBuilder::finish(uint64_t events_dropped) const {
  ApiSummary summary;
  summary.events = calls_;
  summary.launches = launches_;
  summary.host_ns_in_cuda = host_ns_;
  summary.wall_ns = last_ > first_ ? last_ - first_ : 0;
  summary.events_dropped = events_dropped;
  for (const auto& [id, a] : apis_) summary.apis.push_back(a);
  for (const auto& [id, s] : stacks_) summary.stacks.push_back(s);
  std::sort(summary.apis.begin(), summary.apis.end(), [](const ApiStats& x, const ApiStats& y) {
    return x.total_ns != y.total_ns ? x.total_ns > y.total_ns : x.api < y.api;
  });
  std::sort(summary.stacks.begin(), summary.stacks.end(), [](const StackStats& x, const StackStats& y) {
    return x.total_ns != y.total_ns ? x.total_ns > y.total_ns : x.stack_id < y.stack_id;
  });
  return summary;
}

ApiSummary summarize(const ProcessTrace& trace) {
  ApiSummaryBuilder builder;
  for (const Event& e : trace.events) builder.add(e);
  return builder.finish(trace.events_dropped);
}

}  // namespace syncscope
