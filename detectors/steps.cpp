#include "detectors/steps.h"

#include <algorithm>
#include <unordered_map>

#include "trace/api.h"

namespace syncscope {
namespace {

// Calls that make up a step's pattern. Polls and event records come and go
// with timing (allocator bookkeeping), so they are left out.
bool is_pattern_call(const Event& e) {
  ApiFamily f = api_family(e.api);
  return f != ApiFamily::kQuery && f != ApiFamily::kEventRecord && f != ApiFamily::kStreamWait &&
         (e.flags & kFlagCapturing) == 0;
}

// Share of positions i in [from, n-p) where tokens[i] == tokens[i+p].
double match_rate(const std::vector<uint32_t>& tokens, size_t from, size_t p) {
  if (from + p >= tokens.size()) return 0;
  size_t same = 0, total = tokens.size() - p - from;
  for (size_t i = from; i + p < tokens.size(); ++i) same += tokens[i] == tokens[i + p];
  return static_cast<double>(same) / static_cast<double>(total);
}

}  // namespace

StepInfo detect_steps(const std::vector<Event>& events, const StepOptions& options) {
  StepInfo info;
  if (events.empty()) return info;
  const uint64_t begin = events.front().start_ns;
  for (const Event& e : events) info.end_ns = std::max(info.end_ns, e.end_ns);

  // Tokens: a launch is its kernel (or graph) and stream; any other call its
  // API and call site.
  std::vector<uint32_t> tokens;
  std::vector<uint64_t> times;
  std::vector<uint64_t> ends;
  std::unordered_map<uint64_t, uint32_t> ids;
  for (const Event& e : events) {
    if (!is_pattern_call(e)) continue;
    ApiFamily f = api_family(e.api);
    uint64_t what = (f == ApiFamily::kLaunch || f == ApiFamily::kGraphLaunch) ? e.dst : e.stack_id;
    uint64_t key = what * 1000003u ^ e.stream * 7919u ^ (uint64_t{e.api} << 56);
    auto [it, inserted] = ids.emplace(key, static_cast<uint32_t>(ids.size()));
    tokens.push_back(it->second);
    times.push_back(e.start_ns);
    ends.push_back(e.end_ns);
  }

  // The period: the smallest one that repeats towards the end of the run.
  // Warm-up (compilation, autotuning with its own repeating benchmarks, lazy
  // initialisation) comes first and can be most of a short run's calls, so
  // the search starts with a small window at the end and widens it until a
  // period repeats at least four times inside it. In each window the period is
  // the smallest p that repeats nearly as well as the best one: noise (an
  // occasional extra kernel) lowers every rate alike.
  const size_t n = tokens.size();
  size_t period = 0;
  size_t anchor = n / 2;  // a position inside the steady state
  size_t window = std::min<size_t>(64, n);
  while (window >= 12 && period == 0) {
    const size_t from = n - window;
    std::vector<double> rates(window / 3 + 1, 0.0);
    double best = 0;
    for (size_t p = 1; p <= window / 3; ++p) best = std::max(best, rates[p] = match_rate(tokens, from, p));
    if (best >= options.min_match * 0.75) {
      for (size_t p = 1; p <= window / 3; ++p) {
        if (rates[p] >= 0.9 * best) {
          if (p * 4 <= window || window == n) {
            period = p;
            anchor = from + p;
          }
          break;
        }
      }
    }
    if (window == n) break;
    window = std::min(window * 2, n);
  }
  if (period > 0) {
    // Warm-up ends where the pattern starts to hold, teardown where it stops:
    // walk out from the steady anchor one period at a time. Noisy windows (an
    // extra kernel now and then) are tolerated; three in a row end the walk.
    // Towards warm-up, most of a window repeating is enough (noise); towards
    // teardown the window must repeat as a whole, or the final sync and frees
    // would pass for part of a step.
    auto window_matches = [&](size_t from, double needed) {
      size_t same = 0;
      for (size_t i = from; i < from + period; ++i) same += tokens[i] == tokens[i + period];
      return static_cast<double>(same) >= needed * static_cast<double>(period);
    };
    size_t start = anchor, candidate = anchor;
    int misses = 0;
    while (candidate >= period && misses < 3) {
      candidate -= period;
      if (window_matches(candidate, 0.51)) {
        start = candidate;
        misses = 0;
      } else {
        ++misses;
      }
    }
    size_t stop = std::max(anchor, period);
    candidate = stop;
    misses = 0;
    while (candidate + period <= n && misses < 3) {
      if (window_matches(candidate - period, 1.0)) {
        stop = candidate + period;
        misses = 0;
      } else {
        ++misses;
      }
      candidate += period;
    }
    size_t first_step = start + static_cast<size_t>(std::max(0, options.warmup_steps)) * period;
    uint64_t full = first_step < stop ? (stop - first_step) / period : 0;
    if (full >= 2) {
      info.detected = true;
      info.period_calls = static_cast<uint32_t>(period);
      info.steps = full;
      info.steady_start_ns = times[first_step];
      uint64_t last = times[first_step + full * period - 1];
      info.steady_end_ns = ends[first_step + full * period - 1] + 1;
      // Mean step time from step starts; the last step's length is estimated.
      info.step_ns = full > 1 ? static_cast<double>(times[first_step + (full - 1) * period] - times[first_step]) /
                                    static_cast<double>(full - 1)
                              : static_cast<double>(last - times[first_step]);
      return info;
    }
  }
  // No repeating launch pattern: a time-based warm-up.
  double warmup_ns = options.warmup_seconds >= 0 ? options.warmup_seconds * 1e9
                                                 : 0.1 * static_cast<double>(info.end_ns - begin);
  info.steady_start_ns = begin + static_cast<uint64_t>(warmup_ns);
  info.steady_end_ns = info.end_ns + 1;
  return info;
}

}  // namespace syncscope
