#include "detectors/segmentation/backward_steps.h"

#include <unordered_map>

#include "detectors/period_search.h"
#include "detectors/segmentation/call_tokens.h"

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

// The backward thread's pattern calls, cut into bursts by the main thread's.
struct Bursts {
  std::vector<uint64_t> starts;   // first call's start
  std::vector<double> sizes;      // pattern calls
  std::vector<uint64_t> between;  // a hash of the main thread's calls after it
};

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

}  // namespace

bool steps_from_backward(const std::vector<Event>& events, const StepOptions& options, uint32_t main_tid,
                         PhaseSteps* out) {
  uint32_t backward_tid = 0;
  if (!busiest_other_thread(events, main_tid, &backward_tid)) return false;
  const Bursts bursts = bursts_of(events, backward_tid, main_tid);
  const size_t warmup = warmup_steps(options, kOptimizerWarmupSteps);
  if (bursts.starts.size() < warmup + kMinBurstsPastWarmup || median(bursts.sizes) < kMinBurstCalls) return false;
  const Grouping grouping = accumulation_grouping(bursts.between);
  out->info.name = "train";
  out->info.source = StepSource::kBackward;
  out->info.calls_per_step = static_cast<uint32_t>(median(bursts.sizes) * static_cast<double>(grouping.group));
  std::vector<uint64_t> step_starts;
  for (size_t k = grouping.offset; k < bursts.starts.size(); k += grouping.group)
    step_starts.push_back(bursts.starts[k]);
  for (size_t k = warmup; k + 1 < step_starts.size(); ++k) out->steps.add(step_starts[k], step_starts[k + 1]);
  return out->steps.size() >= kMinSteadySteps;
}

}  // namespace syncscope::segmentation
