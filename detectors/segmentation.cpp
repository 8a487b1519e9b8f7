#include "detectors/segmentation.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "detectors/period_search.h"
#include "trace/api.h"

namespace syncscope {
namespace {

// A step is "interrupted" (eval, a checkpoint, logging inside it) when it
// lasts this many times the median step.
constexpr double kInterruptedFactor = 2.0;
// A further phase (eval) lasts at least this share of the main phase's steps.
constexpr double kMinPhaseShare = 0.01;

// Calls that make up a step's pattern. Polls, event records and stream waits
// come and go with timing (allocator bookkeeping); captured work does not run.
bool is_pattern_call(const Event& e) {
  ApiFamily f = api_family(e.api);
  return f != ApiFamily::kQuery && f != ApiFamily::kEventRecord && f != ApiFamily::kStreamWait &&
         f != ApiFamily::kMarker && (e.flags & kFlagCapturing) == 0;
}

bool is_api(const Event& e, ApiId id) { return e.api == static_cast<uint16_t>(id) && !(e.flags & kFlagError); }

// A launch is its kernel (or graph) and stream; any other call its API,
// call site and stream.
class Tokenizer {
 public:
  uint32_t operator()(const Event& e) {
    ApiFamily f = api_family(e.api);
    uint64_t what = (f == ApiFamily::kLaunch || f == ApiFamily::kGraphLaunch) ? e.dst : e.stack_id;
    uint64_t key = what * 1000003u ^ e.stream * 7919u ^ (uint64_t{e.api} << 56);
    return ids_.emplace(key, static_cast<uint32_t>(ids_.size())).first->second;
  }

 private:
  std::unordered_map<uint64_t, uint32_t> ids_;
};

// The middle element (the upper one of an even count): always a value that
// occurs, so "the step with the median number of calls" exists.
double median(std::vector<double> values) {
  if (values.empty()) return 0;
  auto mid = values.begin() + static_cast<long>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

// A phase's steady steps as [start, end) times, in order.
struct Steps {
  std::vector<uint64_t> starts;
  std::vector<uint64_t> ends;
  size_t size() const { return starts.size(); }
  void add(uint64_t start, uint64_t end) {
    starts.push_back(start);
    ends.push_back(std::max(end, start + 1));
  }
  // Step containing (or last before) t; only for t >= starts.front().
  uint32_t at(uint64_t t) const {
    return static_cast<uint32_t>(std::upper_bound(starts.begin(), starts.end(), t) - starts.begin() - 1);
  }
};

struct PhaseSteps {
  PhaseInfo info;
  Steps steps;
  std::vector<std::pair<uint64_t, uint64_t>> spans;  // [begin, end) stretches the phase covers (sub-phases)
};

void finish_phase(PhaseSteps& phase) {
  std::vector<double> lengths;
  for (size_t k = 0; k < phase.steps.size(); ++k) {
    lengths.push_back(static_cast<double>(phase.steps.ends[k] - phase.steps.starts[k]));
  }
  phase.info.steps = phase.steps.size();
  phase.info.step_ns = median(lengths);
  double total = 0;
  for (double l : lengths) total += l;
  phase.info.mean_step_ns = lengths.empty() ? 0 : total / static_cast<double>(lengths.size());
  phase.info.start_ns = phase.steps.starts.empty() ? 0 : phase.steps.starts.front();
  phase.info.end_ns = phase.steps.ends.empty() ? 0 : phase.steps.ends.back();
  phase.info.interrupted_steps = 0;
  if (lengths.size() >= 3) {
    for (double l : lengths) phase.info.interrupted_steps += l > kInterruptedFactor * phase.info.step_ns;
  }
}

// Main phase from optimizer-step markers: the most frequent marker site.
bool steps_from_markers(const std::vector<Event>& events, const StepOptions& options, PhaseSteps* out,
                        uint32_t* main_tid) {
  std::unordered_map<uint32_t, std::vector<size_t>> by_site;
  for (size_t i = 0; i < events.size(); ++i) {
    if (is_api(events[i], ApiId::syncscope_optimizer_step)) by_site[events[i].stack_id].push_back(i);
  }
  const std::vector<size_t>* markers = nullptr;
  for (const auto& [site, list] : by_site) {
    if (markers == nullptr || list.size() > markers->size() ||
        (list.size() == markers->size() && list.front() < markers->front())) {
      markers = &list;
    }
  }
  const size_t warmup = static_cast<size_t>(options.warmup_steps >= 0 ? options.warmup_steps : 2);
  if (markers == nullptr || markers->size() < warmup + 2 || markers->size() < 3) return false;
  const Event& first = events[markers->front()];
  *main_tid = first.tid;
  out->info.name = "train";
  out->info.source = StepSource::kOptimizerStep;
  out->info.marker_stack_id = first.stack_id;
  // Step k ends with its marker; the first `warmup` steps are warm-up.
  std::vector<double> calls;
  size_t next_event = 0;
  for (size_t k = 0; k < markers->size(); ++k) {
    uint64_t end = events[(*markers)[k]].end_ns + 1;
    size_t count = 0;
    while (next_event < events.size() && events[next_event].start_ns < end) count += is_pattern_call(events[next_event++]);
    if (k < warmup) continue;
    uint64_t start = k == 0 ? events.front().start_ns : events[(*markers)[k - 1]].end_ns + 1;
    out->steps.add(start, end);
    calls.push_back(static_cast<double>(count));
  }
  out->info.calls_per_step = static_cast<uint32_t>(median(calls));
  return true;
}

// One thread's pattern calls as tokens, with the events they came from.
struct ThreadTokens {
  std::vector<uint32_t> tokens;
  std::vector<size_t> event_index;
};

// Steps of a period found in `seq`: step boundaries every `period` tokens
// of each run. With `region_of` (sub-phases: several separate stretches of
// the run's time searched as one sequence), runs are cut where the region
// changes, each piece trimmed to the calls that repeat inside its own
// region, and pieces of fewer than two periods dropped.
void steps_from_runs(const std::vector<Event>& events, const ThreadTokens& seq, const PeriodSearch& found,
                     const std::vector<uint32_t>* region_of, size_t skip_steps, PhaseSteps* out) {
  const size_t p = found.period;
  const size_t n = seq.tokens.size();
  auto same_region = [&](size_t a, size_t b) { return region_of == nullptr || (*region_of)[a] == (*region_of)[b]; };
  auto repeats = [&](size_t k) {
    return (k + p < n && same_region(k, k + p) && seq.tokens[k] == seq.tokens[k + p]) ||
           (k >= p && same_region(k, k - p) && seq.tokens[k] == seq.tokens[k - p]);
  };
  const size_t min_piece = region_of != nullptr ? 2 * p : p;
  // Inside a sub-phase's stretch, a few calls in a row that do not repeat
  // (a checkpoint between an eval pass and the next train step) end a piece.
  const size_t max_gap = region_of != nullptr ? std::max<size_t>(3, p / 10) : n;
  size_t skipped = 0;
  auto emit = [&](size_t b, size_t e) {
    if (e <= b || e - b < min_piece) return;
    if (region_of != nullptr) {
      // A pass runs kernels: a loop of copies (torch.save's tensor by
      // tensor read-back) belongs to the step it happens in.
      std::unordered_map<uint32_t, int> kernels;
      size_t launches = 0;
      for (size_t k = b; k < b + p; ++k) {
        const Event& ev = events[seq.event_index[k]];
        if (api_family(ev.api) != ApiFamily::kLaunch) continue;
        ++launches;
        ++kernels[seq.tokens[k]];
      }
      if (2 * launches < p || kernels.size() < 2) return;
    }
    for (size_t k = b; k + p <= e; k += p) {
      uint64_t start = events[seq.event_index[k]].start_ns;
      uint64_t end = k + p < e ? events[seq.event_index[k + p]].start_ns : events[seq.event_index[k + p - 1]].end_ns + 1;
      if (skipped < skip_steps) {
        ++skipped;
        continue;
      }
      out->steps.add(start, end);
    }
    out->spans.emplace_back(events[seq.event_index[b]].start_ns, events[seq.event_index[e - 1]].end_ns + 1);
  };
  // Every step must look like the piece's first: a uniform loop (the same
  // copy and sync again and again) repeats at any period and would otherwise
  // join the pass it follows; an eval pass of identical layers half-matches
  // a training step's period.
  auto like_first = [&](size_t piece, size_t k, size_t length) {
    size_t same = 0;
    for (size_t j = 0; j < length; ++j) same += seq.tokens[k + j] == seq.tokens[piece + j];
    return 2 * same >= length;
  };
  auto add_piece = [&](size_t b, size_t e) {
    size_t piece = b, k = b + p;
    for (; k + p <= e; k += p) {
      if (like_first(piece, k, p)) continue;
      emit(piece, k);
      piece = k;
    }
    // The calls after the last whole step (the start of a checkpoint after
    // an eval pass) stay with the piece only if they begin like its steps.
    if (k < e && k > piece && !like_first(piece, k, e - k)) e = k;
    emit(piece, e);
  };
  for (const RepeatRun& run : found.runs) {
    size_t piece_begin = run.begin;
    for (size_t pos = run.begin; pos <= run.end; ++pos) {
      if (pos < run.end && (pos == piece_begin || same_region(pos, pos - 1))) continue;
      size_t b = piece_begin, e = pos;
      piece_begin = pos;
      if (region_of == nullptr) {
        add_piece(b, e);
        continue;
      }
      // Repeating stretches of the piece, split at gaps of max_gap calls.
      size_t start = e, last_good = 0, bad = 0;
      for (size_t k = b; k < e; ++k) {
        if (repeats(k)) {
          if (start == e) start = k;
          last_good = k;
          bad = 0;
        } else if (start != e && ++bad >= max_gap) {
          add_piece(start, last_good + 1);
          start = e;
          bad = 0;
        }
      }
      if (start != e) add_piece(start, last_good + 1);
    }
  }
  out->info.source = StepSource::kPattern;
  out->info.calls_per_step = static_cast<uint32_t>(p);
}

ThreadTokens tokens_of_thread(const std::vector<Event>& events, uint32_t tid, Tokenizer& tokenize) {
  ThreadTokens seq;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].tid != tid || !is_pattern_call(events[i])) continue;
    seq.tokens.push_back(tokenize(events[i]));
    seq.event_index.push_back(i);
  }
  return seq;
}

// The main thread's calls searched for further phases: positions in the
// main sequence, each with the stretch (region) it came from.
struct Picked {
  std::vector<size_t> positions;
  std::vector<uint32_t> region_of;
  uint32_t regions = 0;
};

// Further phases: repeats among the picked calls (what lies outside the main
// phase's ordinary steps), up to two of them.
std::vector<PhaseSteps> sub_phases(const std::vector<Event>& events, const ThreadTokens& main_seq,
                                   const Picked& picked) {
  std::vector<PhaseSteps> found_phases;
  ThreadTokens seq;
  std::vector<uint32_t> region_of = picked.region_of;
  for (size_t k : picked.positions) {
    seq.tokens.push_back(main_seq.tokens[k]);
    seq.event_index.push_back(main_seq.event_index[k]);
  }
  // A pass repeats inside a stretch (several batches per evaluation): a
  // period as long as a whole stretch would only say that the stretches
  // look alike (eval + the train step around it, every N steps).
  std::vector<double> lengths(picked.regions, 0);
  for (uint32_t region : region_of) ++lengths[region];
  std::vector<double> used;
  for (double l : lengths) {
    if (l > 0) used.push_back(l);
  }
  PeriodOptions options;
  options.max_period = static_cast<uint32_t>(std::max(2.0, median(used) / 2));
  for (int round = 0; round < 2 && seq.tokens.size() >= 6; ++round) {
    PeriodSearch found = find_repeats(seq.tokens, options);
    if (found.period == 0) break;
    PhaseSteps phase;
    steps_from_runs(events, seq, found, &region_of, 0, &phase);
    if (phase.steps.size() >= 2) {
      finish_phase(phase);
      found_phases.push_back(std::move(phase));
    }
    // What is left for the next round.
    ThreadTokens rest;
    std::vector<uint32_t> rest_region;
    size_t next_run = 0;
    for (size_t k = 0; k < seq.tokens.size(); ++k) {
      while (next_run < found.runs.size() && found.runs[next_run].end <= k) ++next_run;
      if (next_run < found.runs.size() && k >= found.runs[next_run].begin) continue;
      rest.tokens.push_back(seq.tokens[k]);
      rest.event_index.push_back(seq.event_index[k]);
      rest_region.push_back(region_of[k]);
    }
    seq = std::move(rest);
    region_of = std::move(rest_region);
  }
  return found_phases;
}

// Steps from backward passes: autograd runs them on its own thread, in
// bursts while the main thread waits. The busiest other thread's launches,
// between two calls of the main thread, are one burst; a step runs from one
// burst's start to the next's. For training without torch.optim (a manual
// SGD update) or attached after the fact.
bool steps_from_backward(const std::vector<Event>& events, const StepOptions& options, uint32_t main_tid,
                         PhaseSteps* out) {
  std::unordered_map<uint32_t, size_t> launches;
  size_t all_launches = 0;
  for (const Event& e : events) {
    if (api_family(e.api) != ApiFamily::kLaunch || !is_pattern_call(e)) continue;
    ++all_launches;
    if (e.tid != main_tid) ++launches[e.tid];
  }
  uint32_t backward_tid = 0;
  size_t most = 0;
  for (const auto& [tid, n] : launches) {
    if (n > most) backward_tid = tid, most = n;
  }
  if (most == 0 || most * 10 < all_launches) return false;
  std::vector<uint64_t> starts;
  std::vector<double> sizes;
  std::vector<uint64_t> between;  // per burst: a hash of the main thread's calls after it
  Tokenizer tokenize;
  bool in_burst = false;
  for (const Event& e : events) {
    if (!is_pattern_call(e)) continue;
    if (e.tid == backward_tid) {
      if (!in_burst) starts.push_back(e.start_ns), sizes.push_back(0), between.push_back(0);
      in_burst = true;
      sizes.back() += 1;
    } else if (e.tid == main_tid) {
      in_burst = false;
      if (!between.empty()) between.back() = between.back() * 1000003u + tokenize(e) + 1;
    }
  }
  const size_t warmup = static_cast<size_t>(options.warmup_steps >= 0 ? options.warmup_steps : 2);
  // A backward pass launches many kernels; lone launches of a helper
  // thread are not bursts.
  if (starts.size() < warmup + 3 || median(sizes) < 4) return false;
  // Gradient accumulation: k backward passes per optimizer step, the main
  // thread's calls after every k-th one differ (the optimizer's update).
  // The period of those signatures groups the bursts.
  std::unordered_map<uint64_t, uint32_t> ids;
  std::vector<uint32_t> signature;
  for (uint64_t h : between) signature.push_back(ids.emplace(h, static_cast<uint32_t>(ids.size())).first->second);
  // Only the shape of accumulation counts: a short period of k-1 alike
  // signatures and one other (logging or eval every N steps makes more kinds).
  PeriodSearch grouped = find_repeats(signature);
  size_t group = 1, offset = 0;
  auto kinds_in_period = [&] {
    std::unordered_map<uint32_t, int> kinds;
    for (size_t k = grouped.runs.front().begin; k < grouped.runs.front().begin + grouped.period; ++k) ++kinds[signature[k]];
    return kinds.size();
  };
  if (grouped.period > 1 && grouped.period <= 16 && !grouped.runs.empty() &&
      grouped.runs.front().end - grouped.runs.front().begin >= signature.size() / 2 && kinds_in_period() == 2) {
    group = grouped.period;
    // Steps end after the burst whose signature is the rarest in a period
    // (the optimizer's): start each step right after it.
    std::unordered_map<uint32_t, size_t> seen;
    for (uint32_t id : signature) ++seen[id];
    size_t rarest = grouped.runs.front().begin;
    for (size_t k = grouped.runs.front().begin; k < grouped.runs.front().begin + group; ++k) {
      if (seen[signature[k]] < seen[signature[rarest]]) rarest = k;
    }
    offset = (rarest + 1) % group;
  }
  out->info.name = "train";
  out->info.source = StepSource::kBackward;
  out->info.calls_per_step = static_cast<uint32_t>(median(sizes) * static_cast<double>(group));
  std::vector<uint64_t> step_starts;
  for (size_t k = offset; k < starts.size(); k += group) step_starts.push_back(starts[k]);
  for (size_t k = warmup; k + 1 < step_starts.size(); ++k) out->steps.add(step_starts[k], step_starts[k + 1]);
  return out->steps.size() >= 2;
}

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

// What an unusual step holds beyond an ordinary one: steps that last much
// longer than the median or make many more calls (an eval pass, a checkpoint,
// a log line inside them) keep the calls left once an ordinary step's calls
// are taken out, from the end: a step ends with its own forward, backward and
// optimizer step, so what comes first is the extra work.
Picked extra_work(const std::vector<Event>& events, const ThreadTokens& main_seq, const PhaseSteps& phase) {
  Picked picked;
  std::vector<std::vector<size_t>> per_step = calls_per_step(events, main_seq, phase);
  std::vector<double> counts;
  for (const auto& calls : per_step) counts.push_back(static_cast<double>(calls.size()));
  const double median_calls = median(counts);
  const double median_ns = phase.info.step_ns;
  // The ordinary step: one with the median number of calls.
  std::unordered_map<uint32_t, int> ordinary;
  for (const auto& calls : per_step) {
    if (static_cast<double>(calls.size()) != median_calls) continue;
    for (size_t k : calls) ++ordinary[main_seq.tokens[k]];
    break;
  }
  for (size_t step = 0; step < per_step.size(); ++step) {
    const double ns = static_cast<double>(phase.steps.ends[step] - phase.steps.starts[step]);
    const double calls = static_cast<double>(per_step[step].size());
    if (ns <= kInterruptedFactor * median_ns && calls <= median_calls + std::max(8.0, 0.2 * median_calls)) continue;
    std::unordered_map<uint32_t, int> left = ordinary;
    std::vector<size_t> kept;
    for (auto it = per_step[step].rbegin(); it != per_step[step].rend(); ++it) {
      int& n = left[main_seq.tokens[*it]];
      if (n > 0) --n;
      else kept.push_back(*it);
    }
    std::reverse(kept.begin(), kept.end());
    for (size_t k : kept) {
      picked.positions.push_back(k);
      picked.region_of.push_back(picked.regions);
    }
    ++picked.regions;
  }
  return picked;
}

// Every main-thread call inside the time stretches (in order, disjoint), one
// region per stretch that holds any; one sweep over the calls.
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

}  // namespace

Segmentation segment_run(const std::vector<Event>& events, const StepOptions& options) {
  Segmentation seg;
  seg.base = events.data();
  seg.places.resize(events.size());
  seg.waiter_stack.assign(events.size(), 0);
  seg.waiter_tid.assign(events.size(), 0);
  if (events.empty()) return seg;
  const uint64_t begin = events.front().start_ns;
  for (const Event& e : events) seg.main.end_ns = std::max(seg.main.end_ns, e.end_ns);

  Tokenizer tokenize;
  PhaseSteps main;
  uint32_t main_tid = 0;
  for (const Event& e : events) {
    if (is_pattern_call(e)) {
      main_tid = e.tid;
      break;
    }
  }
  bool have_main = steps_from_markers(events, options, &main, &main_tid);
  if (!have_main) have_main = steps_from_backward(events, options, main_tid, &main);
  ThreadTokens main_seq = tokens_of_thread(events, main_tid, tokenize);
  Picked extra;
  if (have_main) {
    finish_phase(main);
    extra = extra_work(events, main_seq, main);
  } else {
    PeriodSearch found = find_repeats(main_seq.tokens);
    if (found.period != 0) {
      main.info.name = "loop";
      steps_from_runs(events, main_seq, found, nullptr,
                      static_cast<size_t>(options.warmup_steps >= 0 ? options.warmup_steps : 1), &main);
      have_main = main.steps.size() >= 2;
      if (have_main) {
        finish_phase(main);
        std::vector<std::pair<uint64_t, uint64_t>> gaps;
        for (size_t k = 1; k < main.spans.size(); ++k) gaps.emplace_back(main.spans[k - 1].second, main.spans[k].first);
        pick_stretches(events, main_seq, gaps, &extra);
      }
    }
  }
  if (!have_main) {
    // No steps: a time-based warm-up.
    double warmup_ns = options.warmup_seconds >= 0 ? options.warmup_seconds * 1e9
                                                   : 0.1 * static_cast<double>(seg.main.end_ns - begin);
    seg.main.steady_start_ns = begin + static_cast<uint64_t>(warmup_ns);
    seg.main.steady_end_ns = seg.main.end_ns + 1;
    for (size_t i = 0; i < events.size(); ++i) {
      seg.places[i].phase = events[i].start_ns < seg.main.steady_start_ns ? Phase::kWarmup : Phase::kSteady;
    }
    return seg;
  }
  const uint64_t main_end = main.steps.ends.back();
  pick_stretches(events, main_seq, {{main_end, seg.main.end_ns + 1}}, &extra);  // passes after the loop
  std::vector<PhaseSteps> phases;
  phases.push_back(std::move(main));
  // A pass worth its own phase takes a share of the run: a few repeats of
  // a kernel pair left over from a pass's last, shorter batch are not one.
  const double main_ns = phases[0].info.mean_step_ns * static_cast<double>(phases[0].info.steps);
  const std::string prefix = phases[0].info.name == "train" ? "eval" : "loop-2";
  for (PhaseSteps& sub : sub_phases(events, main_seq, extra)) {
    if (sub.info.mean_step_ns * static_cast<double>(sub.info.steps) < kMinPhaseShare * main_ns) continue;
    sub.info.name = phases.size() == 1 ? prefix : prefix + "-2";
    phases.push_back(std::move(sub));
  }

  // Label every event: a sub-phase's stretch first, then the main phase's
  // span, else warm-up before it and teardown after everything.
  struct Stretch {
    uint64_t begin, end;
    int16_t phase;
  };
  std::vector<Stretch> stretches;
  uint64_t steady_end = main_end;
  for (size_t p = 1; p < phases.size(); ++p) {
    for (const auto& [b, e] : phases[p].spans) stretches.push_back({b, e, static_cast<int16_t>(p)});
    steady_end = std::max(steady_end, phases[p].info.end_ns);
  }
  std::sort(stretches.begin(), stretches.end(), [](const Stretch& a, const Stretch& b) { return a.begin < b.begin; });
  const uint64_t main_begin = phases[0].steps.starts.front();
  size_t s = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const uint64_t t = events[i].start_ns;
    EventPlace& place = seg.places[i];
    while (s < stretches.size() && stretches[s].end <= t) ++s;
    if (s < stretches.size() && t >= stretches[s].begin) {
      const PhaseSteps& phase = phases[stretches[s].phase];
      place = {Phase::kSteady, stretches[s].phase, t >= phase.steps.starts.front() ? phase.steps.at(t) : 0};
    } else if (t >= main_begin && t < main_end) {
      place = {Phase::kSteady, 0, phases[0].steps.at(t)};
    } else {
      place.phase = t < main_begin ? Phase::kWarmup : Phase::kTeardown;
    }
  }
  // A stretch of teardown between two sub-phase stretches (between a
  // validation and a test pass) stays teardown: it belongs to no loop.

  const PhaseInfo& info = phases[0].info;
  seg.main.detected = true;
  seg.main.period_calls = info.calls_per_step;
  seg.main.steps = info.steps;
  seg.main.steady_start_ns = main_begin;
  seg.main.steady_end_ns = steady_end;
  seg.main.step_ns = info.step_ns;
  for (PhaseSteps& p : phases) seg.phases.push_back(std::move(p.info));
  return seg;
}

Segmentation segmentation_from_steps(const std::vector<Event>& events, const StepInfo& steps) {
  Segmentation seg;
  seg.main = steps;
  seg.base = events.data();
  seg.places.resize(events.size());
  seg.waiter_stack.assign(events.size(), 0);
  seg.waiter_tid.assign(events.size(), 0);
  const bool with_phase = steps.detected && steps.steps > 0;
  if (with_phase) {
    PhaseInfo phase;
    phase.name = "loop";
    phase.steps = steps.steps;
    phase.calls_per_step = steps.period_calls;
    phase.step_ns = steps.step_ns;
    phase.start_ns = steps.steady_start_ns;
    phase.end_ns = steps.steady_end_ns;
    seg.phases.push_back(phase);
  }
  for (size_t i = 0; i < events.size(); ++i) {
    const uint64_t t = events[i].start_ns;
    EventPlace& place = seg.places[i];
    place.phase = t < steps.steady_start_ns ? Phase::kWarmup : t < steps.steady_end_ns ? Phase::kSteady : Phase::kTeardown;
    if (place.phase == Phase::kSteady && with_phase) {
      place.phase_index = 0;
      place.step = steps.step_ns > 0 ? static_cast<uint32_t>(static_cast<double>(t - steps.steady_start_ns) / steps.step_ns) : 0;
    }
  }
  return seg;
}

}  // namespace syncscope
