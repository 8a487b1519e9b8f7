#include "detectors/period_search.h"

#include <algorithm>

namespace syncscope {
namespace {

// A distance is a candidate period once it separates this many pairs of
// equal tokens: one pair is a coincidence.
constexpr uint32_t kMinDistanceCount = 2;
// The period covers at least this share of the distinct calls the best
// candidate covers: a layer's period matches only the layer's calls.
constexpr double kMinCoverageShare = 0.8;
// A divisor of the chosen period replaces it when it matches at least this
// share as often: two identical steps, or ten steps of which one logs, are
// one step's period; a layer's period inside a step matches much less.
constexpr double kDivisorMatchShare = 0.97;
// The period must match at least this many periods' worth of calls.
constexpr uint64_t kMinFullRepeats = 2;

struct Score {
  uint64_t matches = 0;   // positions i < n - p where tokens[i] == tokens[i + p]
  uint32_t coverage = 0;  // distinct tokens that match there at least twice
};

// `seen` is scratch space with one zeroed counter per token value.
Score score_at(const std::vector<uint32_t>& tokens, size_t p, std::vector<uint32_t>& seen) {
  Score score;
  for (size_t i = 0; i + p < tokens.size(); ++i) {
    if (tokens[i] != tokens[i + p]) continue;
    ++score.matches;
    if (++seen[tokens[i]] == 2) ++score.coverage;
  }
  for (size_t i = 0; i + p < tokens.size(); ++i) seen[tokens[i]] = 0;
  return score;
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
    if (histogram[d] >= kMinDistanceCount) distances.push_back(d);
  }
  auto more_common = [&](uint32_t a, uint32_t b) {
    return histogram[a] != histogram[b] ? histogram[a] > histogram[b] : a < b;
  };
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
    if (!runs.empty() && i <= runs.back().end)
      runs.back().end = std::max(runs.back().end, i + p);
    else
      runs.push_back(RepeatRun{i, i + p});
  }
  // A window needs only most of its calls to repeat: trim the calls at
  // either end that do not (a checkpoint right after an eval pass).
  auto good = [&](size_t i) { return good_before[i + 1] != good_before[i]; };
  std::vector<RepeatRun> kept;
  for (RepeatRun run : runs) {
    while (run.begin < run.end && !good(run.begin)) ++run.begin;
    while (run.end > run.begin && !good(run.end - 1)) --run.end;
    if (run.end > run.begin && run.end - run.begin >= options.min_repeats * p) kept.push_back(run);
  }
  return kept;
}

// Among the candidates, the index of the period: a layer's period matches
// only the layer's calls; a step's matches (nearly) every call of the step.
// So the period must cover nearly as many distinct calls as the best
// candidate; among those, most matches.
size_t best_candidate(const std::vector<uint64_t>& matches, const std::vector<uint32_t>& coverage) {
  uint32_t max_coverage = 0;
  for (uint32_t c : coverage) max_coverage = std::max(max_coverage, c);
  size_t best = matches.size();
  for (size_t c = 0; c < matches.size(); ++c) {
    if (coverage[c] < kMinCoverageShare * max_coverage) continue;
    if (best == matches.size() || matches[c] > matches[best]) best = c;
  }
  return best;
}

// A period made of several identical steps is one step: the smallest
// divisor of the best (candidates are sorted) that matches nearly as well,
// else the best itself.
size_t smallest_divisor(const std::vector<uint32_t>& candidates, const std::vector<uint64_t>& matches, size_t best) {
  for (size_t c = 0; c < best; ++c) {
    if (candidates[best] % candidates[c] == 0 &&
        static_cast<double>(matches[c]) >= kDivisorMatchShare * static_cast<double>(matches[best])) {
      return c;
    }
  }
  return best;
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
  uint32_t max_token = *std::max_element(tokens.begin(), tokens.end());
  std::vector<uint32_t> seen(size_t{max_token} + 1, 0);
  std::vector<uint64_t> matches(candidates.size());
  std::vector<uint32_t> coverage(candidates.size());
  for (size_t c = 0; c < candidates.size(); ++c) {
    Score score = score_at(tokens, candidates[c], seen);
    matches[c] = score.matches;
    coverage[c] = score.coverage;
  }
  const size_t chosen = smallest_divisor(candidates, matches, best_candidate(matches, coverage));
  const uint32_t p = candidates[chosen];
  if (matches[chosen] < kMinFullRepeats * p) return result;
  result.runs = runs_of(tokens, p, options);
  if (!result.runs.empty()) result.period = p;
  return result;
}

}  // namespace syncscope
