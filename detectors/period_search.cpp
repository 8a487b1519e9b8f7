#include "detectors/period_search.h"

#include <algorithm>

namespace syncscope {
namespace {

// Positions i < n - p where tokens[i] == tokens[i + p].
uint64_t matches_at(const std::vector<uint32_t>& tokens, size_t p) {
  uint64_t same = 0;
  for (size_t i = 0; i + p < tokens.size(); ++i) same += tokens[i] == tokens[i + p];
  return same;
}

// The most common distances between a token and its previous occurrence.
std::vector<uint32_t> candidate_periods(const std::vector<uint32_t>& tokens, uint32_t max_period, size_t keep) {
  uint32_t max_token = 0;
  for (uint32_t t : tokens) max_token = std::max(max_token, t);
  std::vector<int64_t> last(size_t{max_token} + 1, -1);
  std::vector<uint32_t> histogram(size_t{max_period} + 1, 0);
  for (size_t i = 0; i < tokens.size(); ++i) {
    int64_t& previous = last[tokens[i]];
    if (previous >= 0 && i - static_cast<size_t>(previous) <= max_period) ++histogram[i - previous];
    previous = static_cast<int64_t>(i);
  }
  std::vector<uint32_t> distances;
  for (uint32_t d = 1; d <= max_period; ++d) {
    if (histogram[d] >= 2) distances.push_back(d);
  }
  auto more_common = [&](uint32_t a, uint32_t b) { return histogram[a] != histogram[b] ? histogram[a] > histogram[b] : a < b; };
  if (distances.size() > keep) {
    std::nth_element(distances.begin(), distances.begin() + static_cast<long>(keep), distances.end(), more_common);
    distances.resize(keep);
  }
  std::sort(distances.begin(), distances.end());
  return distances;
}

// Stretches where the sequence repeats with period p: the union of p-long
// windows in which enough positions equal their neighbour one period away.
std::vector<RepeatRun> runs_of(const std::vector<uint32_t>& tokens, size_t p, const PeriodOptions& options) {
  const size_t n = tokens.size();
  std::vector<uint32_t> good_before(n + 1, 0);  // prefix sums of "repeats with a neighbour"
  for (size_t i = 0; i < n; ++i) {
    bool good = (i + p < n && tokens[i] == tokens[i + p]) || (i >= p && tokens[i] == tokens[i - p]);
    good_before[i + 1] = good_before[i] + (good ? 1 : 0);
  }
  const double needed = options.window_match * static_cast<double>(p);
  std::vector<RepeatRun> runs;
  for (size_t i = 0; i + p <= n; ++i) {
    if (static_cast<double>(good_before[i + p] - good_before[i]) < needed) continue;
    if (!runs.empty() && i <= runs.back().end) runs.back().end = std::max(runs.back().end, i + p);
    else runs.push_back(RepeatRun{i, i + p});
  }
  std::vector<RepeatRun> kept;
  for (const RepeatRun& run : runs) {
    if (run.end > run.begin && run.end - run.begin >= options.min_repeats * p) kept.push_back(run);
  }
  return kept;
}

}  // namespace

PeriodSearch find_repeats(const std::vector<uint32_t>& tokens, const PeriodOptions& options) {
  PeriodSearch result;
  const size_t n = tokens.size();
  if (n < 2 * options.min_repeats) return result;
  const uint32_t max_period = static_cast<uint32_t>(std::min<size_t>(options.max_period, n / options.min_repeats));
  if (max_period == 0) return result;
  std::vector<uint32_t> candidates = candidate_periods(tokens, max_period, options.max_candidates);
  if (candidates.empty()) return result;
  std::vector<uint64_t> matches(candidates.size());
  size_t best = 0;
  for (size_t c = 0; c < candidates.size(); ++c) {
    matches[c] = matches_at(tokens, candidates[c]);
    if (matches[c] > matches[best]) best = c;
  }
  // A period made of several identical steps is one step: take the smallest
  // divisor of the best that matches nearly as well.
  size_t chosen = best;
  for (size_t c = 0; c < best; ++c) {
    if (candidates[best] % candidates[c] == 0 &&
        static_cast<double>(matches[c]) >= 0.97 * static_cast<double>(matches[best])) {
      chosen = c;
      break;
    }
  }
  const uint32_t p = candidates[chosen];
  if (matches[chosen] < 2u * p) return result;  // not even two full repeats
  result.runs = runs_of(tokens, p, options);
  if (!result.runs.empty()) result.period = p;
  return result;
}

}  // namespace syncscope
