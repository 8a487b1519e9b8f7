#include "preload/recording/launch_aggregator.h"

#include <algorithm>

#include "trace/api.h"

namespace syncscope::preload {

namespace {

uint16_t order_mark_api() { return static_cast<uint16_t>(ApiId::syncscope_order_mark); }

uint64_t mix_window(const uint64_t (&recent)[3]) {
  uint64_t h = recent[0] * 0x9e3779b97f4a7c15ull ^ recent[1];
  h = h * 0xbf58476d1ce4e5b9ull ^ recent[2];
  return h ^ (h >> 29);
}

// The markers the step search cuts steps at (an optimizer step, the start
// of a backward pass): no run of any thread may span one.
bool is_step_boundary(const Event& e) {
  return e.api == static_cast<uint16_t>(ApiId::syncscope_optimizer_step) ||
         e.api == static_cast<uint16_t>(ApiId::syncscope_backward_begin);
}

}  // namespace

bool LaunchAggregator::foldable(const Event& e) {
  // An async memset is queued work like a launch (PyTorch's backward zeroes
  // a small buffer every few kernels: left as events, they cut its launches
  // into stretches too short for runs). A synchronous one stays an event:
  // the hidden-sync detector reports it.
  const ApiFamily f = api_family(e.api);
  const bool queued = f == ApiFamily::kLaunch || (f == ApiFamily::kMemset && (e.flags & kFlagAsync));
  return queued && e.stack_id == 0 && (e.flags & (kFlagError | kFlagCapturing)) == 0;
}

void LaunchAggregator::add(const Event& e, Output* out) {
  if (e.api == order_mark_api()) {
    if (enabled_) close_thread(e.tid, out);
    return;  // never written: it only says where a late event belongs
  }
  if (!enabled_) {
    out->events.push_back(e);
    return;
  }
  if (!foldable(e)) {
    close_thread(e.tid, out);
    if (is_step_boundary(e)) cut_at_step_boundary(e.start_ns, out);
    out->events.push_back(e);
    return;
  }
  Open& open = open_[e.tid];
  if (!open.launches.empty() && boundary_between(open.launches.back().start_ns, e.start_ns)) {
    close_first(e.tid, open, open.launches.size(), out);
  }
  open.recent[0] = open.recent[1];
  open.recent[1] = open.recent[2];
  open.recent[2] = shape_hash(launch_shape(e));
  const uint64_t window = mix_window(open.recent);
  open.launches.push_back(e);
  open.windows.push_back(window);
  if (open.launches.size() >= kMinCutRun && ((window >> 17) & kCutMask) == 0) {
    close(e.tid, open, out);
  } else if (open.launches.size() >= kMaxRun) {
    // After the largest window hash (from kMinCutRun on, so the run is not too short).
    auto largest = std::max_element(open.windows.begin() + (kMinCutRun - 1), open.windows.end());
    close_first(e.tid, open, static_cast<size_t>(largest - open.windows.begin()) + 1, out);
  }
}

void LaunchAggregator::cut_at_step_boundary(uint64_t at_ns, Output* out) {
  // Kept sorted: markers of several threads may reach the collector out of order.
  boundaries_.insert(std::upper_bound(boundaries_.begin(), boundaries_.end(), at_ns), at_ns);
  if (boundaries_.size() > kMaxBoundaries) boundaries_.erase(boundaries_.begin());
  for (auto& [tid, open] : open_) {
    // Launches drained already that were made before the step ended go out
    // as a run; those made after stay open. The content window is kept
    // (not reset as after a call of the thread's own): where the drain
    // happened to fall must not change the cuts that follow.
    auto after = std::lower_bound(open.launches.begin(), open.launches.end(), at_ns,
                                  [](const Event& l, uint64_t t) { return l.start_ns < t; });
    close_first(tid, open, static_cast<size_t>(after - open.launches.begin()), out);
  }
}

bool LaunchAggregator::boundary_between(uint64_t last_ns, uint64_t next_ns) const {
  auto it = std::upper_bound(boundaries_.begin(), boundaries_.end(), last_ns);
  return it != boundaries_.end() && *it <= next_ns;
}

void LaunchAggregator::close_thread(uint32_t tid, Output* out) {
  auto it = open_.find(tid);
  if (it == open_.end()) return;
  close(tid, it->second, out);
  // A thread's content window restarts after another call: the cuts that
  // follow depend on the launches alone, not on what came before the call.
  open_.erase(it);
}

void LaunchAggregator::close_stale(uint64_t now_ns, uint64_t idle_ns, Output* out) {
  for (auto it = open_.begin(); it != open_.end();) {
    const std::vector<Event>& l = it->second.launches;
    if (!l.empty() && now_ns > l.back().end_ns + idle_ns) {
      close(it->first, it->second, out);
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
}

void LaunchAggregator::close_all(Output* out) {
  for (auto& [tid, open] : open_) close(tid, open, out);
  open_.clear();
}

const Event* LaunchAggregator::sequence(uint32_t id, size_t* count) const {
  if (id >= sequences_.size()) return nullptr;
  *count = sequences_[id].count;
  return shapes_.data() + sequences_[id].offset;
}

int64_t LaunchAggregator::intern(const std::vector<Event>& launches, uint64_t hash, Output* out) {
  auto [first, last] = by_hash_.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    const Sequence& s = sequences_[it->second];
    if (s.count != launches.size()) continue;
    bool same = true;
    for (size_t i = 0; i < launches.size() && same; ++i) {
      same = same_shape(shapes_[s.offset + i], launch_shape(launches[i]));
    }
    if (same) return it->second;
  }
  if (shapes_.size() + launches.size() > kMaxShapes) return -1;
  const uint32_t id = static_cast<uint32_t>(sequences_.size());
  sequences_.push_back(Sequence{static_cast<uint32_t>(shapes_.size()), static_cast<uint32_t>(launches.size())});
  for (const Event& e : launches) shapes_.push_back(launch_shape(e));
  by_hash_.emplace(hash, id);
  out->new_sequences.push_back(id);
  return id;
}

void LaunchAggregator::close_first(uint32_t tid, Open& open, size_t n, Output* out) {
  if (n == 0) return;
  std::vector<Event> l(open.launches.begin(), open.launches.begin() + static_cast<std::ptrdiff_t>(n));
  open.launches.erase(open.launches.begin(), open.launches.begin() + static_cast<std::ptrdiff_t>(n));
  open.windows.erase(open.windows.begin(), open.windows.begin() + static_cast<std::ptrdiff_t>(n));
  int64_t id = -1;
  if (l.size() >= kMinRun) {
    uint64_t hash = l.size();
    for (const Event& e : l) hash = hash * 0x100000001b3ull ^ shape_hash(launch_shape(e));
    id = intern(l, hash, out);
  }
  if (id < 0) {
    out->events.insert(out->events.end(), l.begin(), l.end());
  } else {
    LaunchRun run{};
    run.first_start_ns = l.front().start_ns;
    run.last_start_ns = l.back().start_ns;
    run.last_end_ns = l.back().end_ns;
    for (const Event& e : l) run.host_ns += e.end_ns - e.start_ns;
    run.tid = tid;
    run.sequence_id = static_cast<uint32_t>(id);
    out->runs.push_back(run);
    out->run_launches += l.size();
    launches_in_runs_ += l.size();
    ++runs_;
  }
}

}  // namespace syncscope::preload
