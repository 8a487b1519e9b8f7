#include "segmentation/extra_work.h"

#include <algorithm>
#include <unordered_map>

namespace syncscope::segmentation {
namespace {

// A step makes "many more calls" than the median step with this many more,
// or this share of the median more when that is larger: a few calls come and
// go with timing (an allocation, a late poll), a log line or a pass is more.
constexpr double kMinExtraCalls = 8.0;
constexpr double kExtraCallsShare = 0.2;

using TokenCounts = std::unordered_map<uint32_t, int>;

// Main-thread calls per step of `phase` (positions in main_seq, per step).
std::vector<std::vector<size_t>> calls_per_step(const std::vector<Event>& events, const ThreadTokens& main_seq,
                                                const PhaseSteps& phase) {
  std::vector<std::vector<size_t>> per_step(phase.steps.size());
  for (size_t k = 0; k < main_seq.tokens.size(); ++k) {
    uint64_t t = events[main_seq.event_index[k]].start_ns;
    if (t < phase.steps.starts.front() || t >= phase.steps.ends.back()) continue;
    uint32_t step = phase.steps.at(t);
    if (t < phase.steps.ends[step]) per_step[step].push_back(k);
  }
  return per_step;
}

// The calls of the ordinary step: the first one with the median number of
// calls, counted per token; *folded_calls gets the launches each of its
// folded runs stands for, by token.
TokenCounts ordinary_step(const std::vector<Event>& events, const std::vector<std::vector<size_t>>& per_step,
                          const std::vector<double>& counts, const ThreadTokens& main_seq, double median_calls,
                          TokenCounts* folded_calls) {
  TokenCounts ordinary;
  for (size_t step = 0; step < per_step.size(); ++step) {
    if (counts[step] != median_calls) continue;
    for (size_t k : per_step[step]) {
      ++ordinary[main_seq.tokens[k]];
      const Event& e = events[main_seq.event_index[k]];
      if (e.flags & kFlagFolded) (*folded_calls)[main_seq.tokens[k]] = static_cast<int>(calls_of(e));
    }
    break;
  }
  return ordinary;
}

bool is_unusual_step(double ns, double calls, double median_ns, double median_calls) {
  return ns > kInterruptedFactor * median_ns ||
         calls > median_calls + std::max(kMinExtraCalls, kExtraCallsShare * median_calls);
}

// The calls of a step left once the ordinary step's are taken out, from the
// end; in order. Folded, the same launches may be cut into runs otherwise in
// an unusual step (a run that spans an update and the next forward where no
// call comes between them in an ordinary step, two runs around an eval pass
// in another): the launches of the ordinary step's folded runs that no token
// of this step matched are then taken out by count, launches from the end
// that fit in what is left of them (raw, nothing is folded: no such count).
std::vector<size_t> beyond_ordinary(const std::vector<Event>& events, const std::vector<size_t>& step_calls,
                                    TokenCounts left, const TokenCounts& folded_calls, const ThreadTokens& main_seq) {
  std::vector<size_t> kept;
  for (auto it = step_calls.rbegin(); it != step_calls.rend(); ++it) {
    int& n = left[main_seq.tokens[*it]];
    if (n > 0)
      --n;
    else
      kept.push_back(*it);
  }
  uint64_t unmatched = 0;
  for (const auto& [token, n] : left) {
    auto calls = folded_calls.find(token);
    if (n > 0 && calls != folded_calls.end())
      unmatched += static_cast<uint64_t>(n) * static_cast<uint64_t>(calls->second);
  }
  if (unmatched > 0) {
    std::vector<size_t> rest;
    for (size_t k : kept) {  // from the end
      const Event& e = events[main_seq.event_index[k]];
      if (is_queued_work(e) && calls_of(e) <= unmatched) {
        unmatched -= calls_of(e);
      } else {
        rest.push_back(k);
      }
    }
    kept = std::move(rest);
  }
  std::reverse(kept.begin(), kept.end());
  return kept;
}

}  // namespace

Picked extra_work(const std::vector<Event>& events, const ThreadTokens& main_seq, const PhaseSteps& phase) {
  Picked picked;
  std::vector<std::vector<size_t>> per_step = calls_per_step(events, main_seq, phase);
  // Calls per step count what a folded run stands for (calls_of).
  std::vector<double> counts;
  for (const auto& calls : per_step) {
    uint64_t n = 0;
    for (size_t k : calls) n += calls_of(events[main_seq.event_index[k]]);
    counts.push_back(static_cast<double>(n));
  }
  const double median_calls = median(counts);
  const double median_ns = phase.info.median_step_ns;
  TokenCounts folded_calls;
  const TokenCounts ordinary = ordinary_step(events, per_step, counts, main_seq, median_calls, &folded_calls);
  for (size_t step = 0; step < per_step.size(); ++step) {
    const double ns = static_cast<double>(phase.steps.ends[step] - phase.steps.starts[step]);
    const double calls = counts[step];
    if (!is_unusual_step(ns, calls, median_ns, median_calls)) continue;
    for (size_t k : beyond_ordinary(events, per_step[step], ordinary, folded_calls, main_seq)) {
      picked.positions.push_back(k);
      picked.region_of.push_back(picked.regions);
    }
    ++picked.regions;
  }
  return picked;
}

void pick_stretches(const std::vector<Event>& events, const ThreadTokens& main_seq,
                    const std::vector<std::pair<uint64_t, uint64_t>>& stretches, Picked* picked) {
  size_t s = 0;
  int64_t last_stretch = -1;
  for (size_t k = 0; k < main_seq.tokens.size() && s < stretches.size(); ++k) {
    uint64_t t = events[main_seq.event_index[k]].start_ns;
    while (s < stretches.size() && stretches[s].second <= t) ++s;
    if (s == stretches.size() || t < stretches[s].first) continue;
    if (static_cast<int64_t>(s) != last_stretch) {
      if (last_stretch >= 0) ++picked->regions;
      last_stretch = static_cast<int64_t>(s);
    }
    picked->positions.push_back(k);
    picked->region_of.push_back(picked->regions);
  }
  if (last_stretch >= 0) ++picked->regions;
}

}  // namespace syncscope::segmentation
