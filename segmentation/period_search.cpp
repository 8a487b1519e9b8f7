#include "segmentation/period_search.h"

#include <algorithm>
#include <cstdint>

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
// A call made less often than once in this many counts toward no period's
// coverage (below).
constexpr uint64_t kRegularOneIn = 1024;
// A candidate k times shorter than the best, give or take at most 1/8 of
// the best's calls, replaces it when it matches at least this share as often.
constexpr uint32_t kNearMultipleSlack = 8;
constexpr double kNearMultipleMatchShare = 0.8;
// A candidate covering every regular call wins over the one with most
// matches when it has at least this share of its matches.
constexpr double kFullCoveragePreference = 0.9;

struct Score {
  uint64_t matches = 0;           // positions i < n - p where tokens[i] == tokens[i + p]
  uint32_t coverage = 0;          // distinct tokens that match there at least twice
  uint32_t regular_coverage = 0;  // of which regular ones (kRegularOneIn)
};

// `seen` is scratch space with one zeroed counter per token value;
// `regular[t]`: whether token t counts toward coverage.
Score score_at(const std::vector<uint32_t>& tokens, size_t p, std::vector<uint32_t>& seen,
               const std::vector<bool>& regular, const PeriodOptions& options) {
  Score score;
  for (size_t i = 0; i + p < tokens.size(); ++i) {
    if (tokens[i] != tokens[i + p]) continue;
    score.matches += options.weights != nullptr ? (*options.weights)[i] : 1;
    if (++seen[tokens[i]] == 2) {
      const uint32_t kinds =
          options.kinds != nullptr && tokens[i] < options.kinds->size() ? (*options.kinds)[tokens[i]] : 1;
      score.coverage += kinds;
      if (regular[tokens[i]]) score.regular_coverage += kinds;
    }
  }
  for (size_t i = 0; i + p < tokens.size(); ++i) seen[tokens[i]] = 0;
  return score;
}

// The `keep` most common distances of a histogram (at least kMinDistanceCount).
std::vector<uint32_t> most_common(const std::vector<uint32_t>& histogram, size_t keep) {
  std::vector<uint32_t> distances;
  for (uint32_t d = 1; d < histogram.size(); ++d) {
    if (histogram[d] >= kMinDistanceCount) distances.push_back(d);
  }
  auto more_common = [&](uint32_t a, uint32_t b) {
    return histogram[a] != histogram[b] ? histogram[a] > histogram[b] : a < b;
  };
  if (distances.size() > keep) {
    std::nth_element(distances.begin(), distances.begin() + static_cast<long>(keep), distances.end(), more_common);
    distances.resize(keep);
  }
  return distances;
}

// A step in which every call recurs (identical layers, micro-batches of
// gradient accumulation) may have no call at one step's distance from its
// previous occurrence: the batch upload of 4 micro-batches recurs 4 times a
// step. Its step shows in the distance to an earlier occurrence: the 4th
// previous upload is a step back. So the candidates also hold the most
// common distances from the rarer calls (at most one call in kRareOneIn)
// to their 2nd..kMaxBack-th previous occurrence, leaving out multiples of
// the call's own usual distance (an optimizer's kernel launched for each of
// 12 parameter groups recurs every 2 calls, 4, 6...: no step there).
constexpr size_t kMaxBack = 8;
constexpr size_t kRareOneIn = 32;
constexpr size_t kRareCandidates = 8;

// Candidate periods: the most common distances between a token and its
// previous occurrence, and those of the rarer tokens' earlier occurrences.
std::vector<uint32_t> candidate_periods(const std::vector<uint32_t>& tokens, const std::vector<uint64_t>& calls,
                                        uint64_t all_calls, uint32_t min_period, uint32_t max_period, size_t keep) {
  uint32_t max_token = 0;
  for (uint32_t t : tokens) max_token = std::max(max_token, t);
  const size_t kinds = size_t{max_token} + 1;
  std::vector<int64_t> previous(kinds, -1);
  std::vector<uint32_t> histogram(size_t{max_period} + 1, 0);
  // Each token's usual distance to its previous occurrence (a majority vote).
  std::vector<uint32_t> usual(kinds, 0), votes(kinds, 0);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const uint32_t t = tokens[i];
    if (previous[t] >= 0) {
      const size_t d = i - static_cast<size_t>(previous[t]);
      if (d >= min_period && d <= max_period) ++histogram[d];
      if (votes[t] == 0) {
        usual[t] = static_cast<uint32_t>(std::min<size_t>(d, UINT32_MAX)), votes[t] = 1;
      } else {
        votes[t] += usual[t] == d ? 1 : -1;
      }
    }
    previous[t] = static_cast<int64_t>(i);
  }
  std::vector<uint32_t> distances = most_common(histogram, keep);

  // The rarer tokens' distances to their earlier occurrences (a ring of the
  // last kMaxBack positions per token).
  const uint64_t rare_limit = all_calls / kRareOneIn;
  std::vector<int64_t> last(kinds * kMaxBack, -1);
  std::vector<uint8_t> next(kinds, 0);
  std::vector<uint32_t> rare(size_t{max_period} + 1, 0);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const uint32_t t = tokens[i];
    if (calls[t] > rare_limit) continue;
    int64_t* ring = &last[size_t{t} * kMaxBack];
    for (size_t back = 2; back <= kMaxBack; ++back) {
      const int64_t at = ring[(next[t] + kMaxBack - back) % kMaxBack];
      if (at < 0 || i - static_cast<size_t>(at) > max_period) break;
      const size_t d = i - static_cast<size_t>(at);
      if (d >= min_period && (usual[t] == 0 || d % usual[t] != 0)) ++rare[d];
    }
    ring[next[t]] = static_cast<int64_t>(i);
    next[t] = static_cast<uint8_t>((next[t] + 1) % kMaxBack);
  }
  for (uint32_t d : most_common(rare, kRareCandidates)) {
    if (std::find(distances.begin(), distances.end(), d) == distances.end()) distances.push_back(d);
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

// Whether a candidate may be the period: a layer's period matches only the
// layer's calls; a step's matches (nearly) every call of the step. So the
// period must cover nearly as many distinct calls as the best candidate, or
// every regular call (kRegularOneIn) that any candidate covers: calls made
// only by a checkpoint every hundred steps are covered by no shorter period.
std::vector<bool> qualified(const std::vector<Score>& scores, uint32_t max_regular) {
  uint32_t max_coverage = 0;
  for (const Score& s : scores) max_coverage = std::max(max_coverage, s.coverage);
  std::vector<bool> ok(scores.size());
  for (size_t c = 0; c < scores.size(); ++c) {
    ok[c] = scores[c].coverage >= kMinCoverageShare * max_coverage || scores[c].regular_coverage >= max_regular;
  }
  return ok;
}

// Among the qualified candidates, the one with most matches; but one that
// covers every regular call is preferred to one that does not when it
// matches nearly as often: in a model of identical layers with little
// else, the layer's period matches about as often as the step's, and only
// the step's covers the batch upload and the optimizer.
size_t best_candidate(const std::vector<Score>& scores, const std::vector<bool>& ok, uint32_t max_regular) {
  size_t best = scores.size(), best_full = scores.size();
  for (size_t c = 0; c < scores.size(); ++c) {
    if (!ok[c]) continue;
    if (best == scores.size() || scores[c].matches > scores[best].matches) best = c;
    if (scores[c].regular_coverage >= max_regular &&
        (best_full == scores.size() || scores[c].matches > scores[best_full].matches)) {
      best_full = c;
    }
  }
  if (best < scores.size() && best_full < scores.size() && scores[best].regular_coverage < max_regular &&
      static_cast<double>(scores[best_full].matches) >=
          kFullCoveragePreference * static_cast<double>(scores[best].matches)) {
    return best_full;
  }
  return best;
}

// A period made of several steps is one step: the smallest qualified
// candidate that covers as many regular calls and either divides the best
// and matches nearly as well (two identical steps), or nearly divides it
// (the best is k steps plus a few calls: ten steps and a log line, a
// hundred steps with a log every ten, an eval every fifty and a checkpoint)
// and matches most as often. The few calls are the periodic extra work the
// segmentation places afterwards. (A layer's period may divide a step's: it
// misses the step's other calls.)
size_t smallest_divisor(const std::vector<uint32_t>& candidates, const std::vector<Score>& scores,
                        const std::vector<bool>& ok, size_t best) {
  const uint32_t whole = candidates[best];
  for (size_t c = 0; c < best; ++c) {
    if (!ok[c] || scores[c].regular_coverage < scores[best].regular_coverage) continue;
    const uint32_t p = candidates[c];
    const double share = static_cast<double>(scores[c].matches) / static_cast<double>(scores[best].matches);
    if (whole % p == 0 && share >= kDivisorMatchShare) return c;
    if (whole >= 2 * p && whole % p <= whole / kNearMultipleSlack && share >= kNearMultipleMatchShare) return c;
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
  // How many calls each token stands for, in all (options.weights).
  const uint32_t max_token = *std::max_element(tokens.begin(), tokens.end());
  std::vector<uint64_t> calls(size_t{max_token} + 1, 0);
  uint64_t all_calls = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t w = options.weights != nullptr ? (*options.weights)[i] : 1;
    calls[tokens[i]] += w;
    all_calls += w;
  }
  std::vector<uint32_t> candidates =
      candidate_periods(tokens, calls, all_calls, options.min_period, max_period, options.max_candidates);
  if (candidates.empty()) return result;
  std::vector<uint32_t> seen(size_t{max_token} + 1, 0);
  // Coverage counts the calls made regularly: a checkpoint's calls, made
  // three times in the run, matched only by a period of a hundred steps,
  // must not make that period look more complete than the step's.
  std::vector<bool> regular(size_t{max_token} + 1);
  for (size_t t = 0; t < regular.size(); ++t) regular[t] = calls[t] * kRegularOneIn >= all_calls;
  std::vector<Score> scores(candidates.size());
  for (size_t c = 0; c < candidates.size(); ++c) scores[c] = score_at(tokens, candidates[c], seen, regular, options);
  uint32_t max_regular = 0;
  for (const Score& score : scores) max_regular = std::max(max_regular, score.regular_coverage);
  const std::vector<bool> ok = qualified(scores, max_regular);
  const size_t best = best_candidate(scores, ok, max_regular);
  if (best == scores.size()) return result;
  const size_t chosen = smallest_divisor(candidates, scores, ok, best);
  const uint32_t p = candidates[chosen];
  const uint64_t period_calls = options.weights == nullptr ? p : all_calls * p / n;  // about
  if (scores[chosen].matches < kMinFullRepeats * period_calls) return result;
  result.runs = runs_of(tokens, p, options);
  if (!result.runs.empty()) result.period = p;
  return result;
}

}  // namespace syncscope
