// The segmentation's order of trust and its last steps. Each source of steps
// and each later step has its own file in segmentation/:
//   call_tokens    the calls searched and their tokens
//   phase_steps    a phase's steps as they are built, and its summary
//   marker_steps   1. optimizer-step markers, then NVTX ranges
//   backward_steps 1b. backward markers, else bursts of autograd's backward thread
//   pattern_steps  2. the repeating pattern of the main thread's calls
//   extra_work     what the main phase's ordinary steps do not explain
//   sub_phases     further phases (eval) among that
//   event_places   every event's place; 3. the time-based fallback
#include "segmentation/segmentation.h"

#include <algorithm>
#include <string>
#include <utility>

#include "segmentation/period_search.h"
#include "segmentation/backward_steps.h"
#include "segmentation/call_tokens.h"
#include "segmentation/event_places.h"
#include "segmentation/extra_work.h"
#include "segmentation/marker_steps.h"
#include "segmentation/pattern_steps.h"
#include "segmentation/phase_steps.h"
#include "segmentation/sub_phases.h"

namespace syncscope {
namespace {

using namespace segmentation;


// The main phase, the thread whose calls make its steps, and the calls its
// ordinary steps do not explain.
struct MainPhase {
  bool found = false;
  PhaseSteps phase;
  ThreadTokens seq;  // the main thread's pattern calls
  Picked extra;
};

// The thread that made the first pattern call (0: none did).
uint32_t first_caller(const std::vector<Event>& events) {
  for (const Event& e : events) {
    if (is_pattern_call(e)) return e.tid;
  }
  return 0;
}

// 2. The dominant repeating pattern of the main thread's calls over the
// whole run ("loop"); the calls between its runs are extra work.
bool pattern_main_phase(const std::vector<Event>& events, const StepOptions& options, MainPhase* main) {
  PeriodOptions period_options;
  period_options.weights = main->seq.weights_or_null();
  period_options.kinds = main->seq.kinds.empty() ? nullptr : &main->seq.kinds;
  PeriodSearch found = find_repeats(main->seq.tokens, period_options);
  if (found.period == 0) return false;
  main->phase.info.name = "loop";
  steps_from_runs(events, main->seq, found, nullptr, warmup_steps(options, kPatternWarmupSteps), &main->phase);
  if (main->phase.steps.size() < kMinSteadySteps) return false;
  finish_phase(main->phase);
  std::vector<std::pair<uint64_t, uint64_t>> gaps;
  const auto& spans = main->phase.spans;
  for (size_t k = 1; k < spans.size(); ++k) gaps.emplace_back(spans[k - 1].second, spans[k].first);
  pick_stretches(events, main->seq, gaps, &main->extra);
  return true;
}

// The main phase from the most trusted source that finds one: optimizer-step
// markers, then NVTX ranges, then backward bursts, then the repeating pattern.
MainPhase find_main_phase(const std::vector<Event>& events, const StepOptions& options) {
  MainPhase main;
  uint32_t main_tid = first_caller(events);
  main.found = steps_from_markers(events, options, &main.phase, &main_tid) ||
               steps_from_nvtx_ranges(events, options, &main.phase, &main_tid) ||
               steps_from_backward(events, options, &main_tid, &main.phase);
  Tokenizer tokenize;
  main.seq = tokens_of_thread(events, main_tid, tokenize);
  if (main.found) {
    finish_phase(main.phase);
    main.extra = extra_work(events, main.seq, main.phase);
  } else {
    main.found = pattern_main_phase(events, options, &main);
  }
  return main;
}

// The main phase, then the further phases found in its extra work that
// take enough of its time: "eval" and "eval-2" after a training loop
// (optimizer steps, NVTX ranges, backward passes),
// "loop-2" and "loop-2-2" after a pattern.
std::vector<PhaseSteps> all_phases(const std::vector<Event>& events, MainPhase main) {
  std::vector<PhaseSteps> phases;
  phases.push_back(std::move(main.phase));
  const double main_ns = phases[0].info.step_ns * static_cast<double>(phases[0].info.steps);
  const StepSource source = phases[0].info.source;
  const std::string prefix = is_training_source(source) ? "eval" : "loop-2";
  std::vector<std::pair<uint64_t, uint64_t>> further;
  for (PhaseSteps& sub : sub_phases(events, main.seq, main.extra)) {
    if (sub.info.step_ns * static_cast<double>(sub.info.steps) < kMinPhaseShare * main_ns) continue;
    sub.info.name = phases.size() == 1 ? prefix : prefix + "-2";
    further.insert(further.end(), sub.spans.begin(), sub.spans.end());
    phases.push_back(std::move(sub));
  }
  // A main step's time runs to the next step's start, its further phases'
  // stretches left out: a site's share is then of the loop's own time, the
  // waits between steps included (a step found by its pattern ends with its
  // last pattern call, and a read-back every 10 steps may wait after it),
  // and never tops 100%.
  time_to_next_step(phases[0], std::move(further));
  return phases;
}

// seg.main from the main phase; its steady span runs to the last step of any phase.
void describe_main(const std::vector<PhaseSteps>& phases, Segmentation* seg) {
  uint64_t steady_end = phases[0].steps.ends.back();
  for (size_t p = 1; p < phases.size(); ++p) steady_end = std::max(steady_end, phases[p].info.end_ns);
  const PhaseInfo& info = phases[0].info;
  seg->main.detected = true;
  seg->main.period_calls = info.calls_per_step;
  seg->main.steps = info.steps;
  seg->main.steady_start_ns = phases[0].steps.starts.front();
  seg->main.steady_end_ns = steady_end;
  seg->main.step_ns = info.step_ns;
}

Segmentation empty_segmentation(const std::vector<Event>& events) {
  Segmentation seg;
  seg.base = events.data();
  seg.places.resize(events.size());
  return seg;
}

}  // namespace

Segmentation segment_run(const std::vector<Event>& events, const StepOptions& options) {
  Segmentation seg = empty_segmentation(events);
  if (events.empty()) return seg;
  for (const Event& e : events) seg.main.end_ns = std::max(seg.main.end_ns, e.end_ns);

  MainPhase main = find_main_phase(events, options);
  if (!main.found) {
    place_by_time(events, options, &seg);  // 3. no steps
    return seg;
  }
  // Passes after the loop are extra work too.
  const uint64_t main_end = main.phase.steps.ends.back();
  pick_stretches(events, main.seq, {{main_end, seg.main.end_ns + 1}}, &main.extra);
  std::vector<PhaseSteps> phases = all_phases(events, std::move(main));
  place_in_phases(events, phases, &seg);
  describe_main(phases, &seg);
  for (PhaseSteps& p : phases) seg.phases.push_back(std::move(p.info));
  return seg;
}

}  // namespace syncscope
