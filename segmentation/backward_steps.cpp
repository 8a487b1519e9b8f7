#include "segmentation/backward_steps.h"

#include <algorithm>
#include <unordered_map>

#include "segmentation/period_search.h"
#include "segmentation/call_tokens.h"
#include "segmentation/marker_steps.h"

namespace syncscope::segmentation {
namespace {

// The backward thread makes at least one launch in this many of the run's:
// it launches every backward pass, a large share of a training step's
// kernels; a helper thread's occasional launch makes no backward thread.
constexpr size_t kBackwardLaunchShareInverse = 10;
// A backward pass launches many kernels: when the median burst has fewer
// calls, the bursts are a helper thread's lone launches.
constexpr double kMinBurstCalls = 4;
// Bursts needed past warm-up: a step runs from one burst's start to the
// next's, so kMinSteadySteps steps take one more.
constexpr size_t kMinBurstsPastWarmup = kMinSteadySteps + 1;

// Gradient accumulation takes a short period: at most this many backward
// passes per optimizer step.
constexpr uint32_t kMaxAccumulatedPasses = 16;
// The accumulation pattern holds over at least 1/this of the bursts.
constexpr size_t kAccumulationCoverInverse = 2;
// Kinds of main-thread signature in one accumulation period: the k-1
// passes alike and the one followed by the optimizer's update.
constexpr size_t kAccumulationSignatureKinds = 2;

// The thread other than main_tid that makes the most launches, when it
// makes enough of all of them; else false.
bool busiest_other_thread(const std::vector<Event>& events, uint32_t main_tid, uint32_t* backward_tid) {
  std::unordered_map<uint32_t, size_t> launches;
  size_t all_launches = 0;
  for (const Event& e : events) {
    if (api_family(e.api) != ApiFamily::kLaunch || !is_pattern_call(e)) continue;
    all_launches += calls_of(e);
    if (e.tid != main_tid) launches[e.tid] += calls_of(e);
  }
  uint32_t busiest = 0;
  size_t most = 0;
  for (const auto& [tid, n] : launches) {
    if (n > most) busiest = tid, most = n;
  }
  if (most == 0 || most * kBackwardLaunchShareInverse < all_launches) return false;
  *backward_tid = busiest;
  return true;
}

// Backward passes: the backward thread's pattern calls cut into bursts by
// the main thread's, or the intervals between backward markers.
struct Bursts {
  std::vector<uint64_t> starts;   // first call's start, or the marker's
  std::vector<double> sizes;      // pattern calls
  std::vector<uint64_t> between;  // a hash of the main thread's calls after it
};

// The passes of the busiest backward-marker site (python/sitecustomize.py
// marks each outermost torch.autograd.backward() call): each runs from its
// marker to the next; *main_tid becomes the thread that made them, and each
// pass's signature is what that thread calls up to the next marker (the
// optimizer's update after every k-th under gradient accumulation). Markers
// need no backward thread and no burst to be seen: an aggregated recording
// cuts every thread's runs at them (preload/recording/launch_aggregator.h).
Bursts bursts_from_markers(const std::vector<Event>& events, uint32_t* main_tid) {
  Bursts bursts;
  const std::vector<size_t> markers = busiest_marker_site(events, ApiId::syncscope_backward_begin);
  if (markers.empty()) return bursts;
  *main_tid = events[markers.front()].tid;
  Tokenizer tokenize;
  size_t next = 0;
  for (size_t i = markers.front(); i < events.size(); ++i) {
    if (next < markers.size() && i == markers[next]) {
      bursts.starts.push_back(events[i].start_ns);
      bursts.sizes.push_back(0);
      bursts.between.push_back(0);
      ++next;
      continue;
    }
    const Event& e = events[i];
    if (!is_pattern_call(e)) continue;
    bursts.sizes.back() += static_cast<double>(calls_of(e));
    if (e.tid == *main_tid) bursts.between.back() = bursts.between.back() * kHashPrime + tokenize(e) + 1;
  }
  return bursts;
}

// A folded run of the backward thread (trace/event.h) may span several
// backward passes: the aggregator cuts runs by their content, not at each
// pass. Its launches are taken as spread evenly over its
// span, as the reader puts them back launch by launch, and whatever the main
// thread calls in between cuts the burst there.
class SpreadRuns {
 public:
  void add(const Event& e) { open_.push_back({e.start_ns, std::max(e.end_ns, e.start_ns), calls_of(e), 0}); }
  // Hands `take(first_launch_start, launches)` each open run's launches that
  // start before t, in order.
  template <typename Take>
  void until(uint64_t t, Take take) {
    for (Open& o : open_) {
      const uint64_t span = o.end - o.start;
      // Launch j starts at start + span * j / n: those before t.
      uint64_t before = o.n;
      if (t <= o.start) {
        before = 0;
      } else if (t - o.start <= span && span > 0) {
        const unsigned __int128 scaled = static_cast<unsigned __int128>(t - o.start) * o.n;
        before = std::min<uint64_t>(o.n, static_cast<uint64_t>((scaled + span - 1) / span));
      }
      if (before > o.taken) {
        take(o.start + static_cast<uint64_t>(static_cast<unsigned __int128>(span) * o.taken / o.n), before - o.taken);
        o.taken = before;
      }
    }
    open_.erase(std::remove_if(open_.begin(), open_.end(), [](const Open& o) { return o.taken == o.n; }), open_.end());
  }

 private:
  struct Open {
    uint64_t start, end, n, taken;
  };
  std::vector<Open> open_;
};

Bursts bursts_of(const std::vector<Event>& events, uint32_t backward_tid, uint32_t main_tid) {
  Bursts bursts;
  Tokenizer tokenize;
  bool in_burst = false;
  auto add_to_burst = [&](uint64_t start, uint64_t calls) {
    if (!in_burst) bursts.starts.push_back(start), bursts.sizes.push_back(0), bursts.between.push_back(0);
    in_burst = true;
    bursts.sizes.back() += static_cast<double>(calls);
  };
  SpreadRuns spread;
  for (const Event& e : events) {
    if (!is_pattern_call(e)) continue;
    spread.until(e.start_ns, add_to_burst);
    if (e.tid == backward_tid) {
      if (e.flags & kFlagFolded) {
        spread.add(e);
        spread.until(e.start_ns + 1, add_to_burst);  // its first launch
      } else {
        add_to_burst(e.start_ns, 1);
      }
    } else if (e.tid == main_tid) {
      in_burst = false;
      if (!bursts.between.empty()) bursts.between.back() = bursts.between.back() * kHashPrime + tokenize(e) + 1;
    }
  }
  spread.until(UINT64_MAX, add_to_burst);
  return bursts;
}

// Bursts per step and the burst a step starts at (within a group).
struct Grouping {
  size_t group = 1;
  size_t offset = 0;
};

// Gradient accumulation: k backward passes per optimizer step, the main
// thread's calls after every k-th one differ (the optimizer's update). The
// period of those signatures groups the bursts. Only the shape of
// accumulation counts: a short period of k-1 alike signatures and one other
// (logging or eval every N steps makes more kinds).
Grouping accumulation_grouping(const std::vector<uint64_t>& between) {
  Grouping grouping;
  std::unordered_map<uint64_t, uint32_t> ids;
  std::vector<uint32_t> signature;
  for (uint64_t h : between) signature.push_back(ids.emplace(h, static_cast<uint32_t>(ids.size())).first->second);
  PeriodSearch grouped = find_repeats(signature);
  auto kinds_in_period = [&] {
    std::unordered_map<uint32_t, int> kinds;
    for (size_t k = grouped.runs.front().begin; k < grouped.runs.front().begin + grouped.period; ++k)
      ++kinds[signature[k]];
    return kinds.size();
  };
  if (grouped.period > 1 && grouped.period <= kMaxAccumulatedPasses && !grouped.runs.empty() &&
      grouped.runs.front().end - grouped.runs.front().begin >= signature.size() / kAccumulationCoverInverse &&
      kinds_in_period() == kAccumulationSignatureKinds) {
    grouping.group = grouped.period;
    // Steps end after the burst whose signature is the rarest in a period
    // (the optimizer's): start each step right after it.
    std::unordered_map<uint32_t, size_t> seen;
    for (uint32_t id : signature) ++seen[id];
    size_t rarest = grouped.runs.front().begin;
    for (size_t k = grouped.runs.front().begin; k < grouped.runs.front().begin + grouping.group; ++k) {
      if (seen[signature[k]] < seen[signature[rarest]]) rarest = k;
    }
    grouping.offset = (rarest + 1) % grouping.group;
  }
  return grouping;
}

// The passes from backward markers when there are enough, else autograd's
// thread's bursts; *from_markers says which. Empty when neither makes a loop.
Bursts backward_passes(const std::vector<Event>& events, size_t warmup, uint32_t* main_tid, bool* from_markers) {
  uint32_t marker_tid = *main_tid;
  Bursts bursts = bursts_from_markers(events, &marker_tid);
  *from_markers = bursts.starts.size() >= warmup + kMinBurstsPastWarmup;
  if (*from_markers) {
    *main_tid = marker_tid;
    return bursts;
  }
  uint32_t backward_tid = 0;
  if (!busiest_other_thread(events, *main_tid, &backward_tid)) return {};
  bursts = bursts_of(events, backward_tid, *main_tid);
  if (bursts.starts.size() < warmup + kMinBurstsPastWarmup || median(bursts.sizes) < kMinBurstCalls) return {};
  return bursts;
}

}  // namespace

bool steps_from_backward(const std::vector<Event>& events, const StepOptions& options, uint32_t* main_tid,
                         PhaseSteps* out) {
  const size_t warmup = warmup_steps(options, kOptimizerWarmupSteps);
  uint32_t tid = *main_tid;
  bool from_markers = false;
  const Bursts bursts = backward_passes(events, warmup, &tid, &from_markers);
  if (bursts.starts.empty()) return false;
  const Grouping grouping = accumulation_grouping(bursts.between);
  out->info.name = "train";
  out->info.source = StepSource::kBackward;
  std::vector<uint64_t> step_starts;
  std::vector<double> step_calls;  // a marker pass's calls, summed over its group
  for (size_t k = grouping.offset; k < bursts.starts.size(); k += grouping.group) {
    step_starts.push_back(bursts.starts[k]);
    double calls = 0;
    for (size_t j = k; j < std::min(k + grouping.group, bursts.sizes.size()); ++j) calls += bursts.sizes[j];
    step_calls.push_back(calls);
  }
  std::vector<double> steady_calls;
  for (size_t k = warmup; k + 1 < step_starts.size(); ++k) {
    out->steps.add(step_starts[k], step_starts[k + 1]);
    steady_calls.push_back(step_calls[k]);
  }
  // A burst holds the backward thread's calls alone; a marker's pass every
  // call of the step, as an optimizer step's does.
  out->info.calls_per_step = static_cast<uint32_t>(
      from_markers ? median(steady_calls) : median(bursts.sizes) * static_cast<double>(grouping.group));
  if (out->steps.size() < kMinSteadySteps) return false;
  *main_tid = tid;
  return true;
}

}  // namespace syncscope::segmentation
