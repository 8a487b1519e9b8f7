#include "detectors/windowed_analysis.h"

#include <algorithm>
#include <cmath>

#include "detectors/finding_merge.h"
#include "detectors/finding_rank.h"
#include "segmentation/segmentation.h"

namespace syncscope {
namespace {

// Findings at the edge of a window without main-phase steps, until
// analysis() decides: phase_index kUndecidedBase - the window's number.
constexpr int kUndecidedBase = -2;

// Adds `f`'s counts and times to `into`, the same site's finding.
void add_to(Finding& into, const Finding& f) {
  into.count += f.count;
  into.host_blocked_ns += f.host_blocked_ns;
  into.bytes += f.bytes;
  into.steps_with += f.steps_with;
  for (const FindingStepCount& s : f.step_counts) {
    if (into.step_counts.size() >= WindowedAnalysis::kMaxStepFigures) break;
    into.step_counts.push_back(s);
  }
  for (const FindingOccurrence& o : f.occurrences) {
    if (into.occurrences.size() >= kMaxFindingOccurrences) break;
    into.occurrences.push_back(o);
  }
}

}  // namespace

void WindowedAnalysis::add(const ProcessTrace& tables, std::vector<Event> window, bool last) {
  const bool first = windows_ == 0;
  ++windows_;
  ProcessTrace view;
  view.events = std::move(carry_);
  carry_.clear();
  if (view.events.empty()) {
    view.events = std::move(window);
  } else {
    view.events.insert(view.events.end(), window.begin(), window.end());
    std::vector<Event>().swap(window);
    // A window's events may start before the carried ones (a thread late to the file).
    if (!std::is_sorted(view.events.begin(), view.events.end(), starts_before)) {
      std::stable_sort(view.events.begin(), view.events.end(), starts_before);
    }
  }
  if (view.events.empty()) return;
  view.python_stacks = tables.python_stacks;
  view.python_code = tables.python_code;  // which stacks are inside a compilation (detectors/compilation.h)
  view.strings = tables.strings;
  view.header = tables.header;
  StepOptions options = options_;
  if (!first) options.warmup_steps = 0;
  Analysis a = analyze(view, options);

  // The events after the window's last steady step go on to the next window.
  size_t kept = view.events.size();
  if (!last && a.steps.detected && a.steps.steps > 0) {
    // The main phase's last step end: a further phase's pass after it (an
    // evaluation the window's end cut in two) goes on whole with the next
    // window, whose first step holds it, as the step before did.
    const uint64_t cut = a.phases.empty() ? a.steps.steady_end_ns : a.phases[0].end_ns;
    kept = static_cast<size_t>(std::lower_bound(view.events.begin(), view.events.end(), cut,
                                                [](const Event& e, uint64_t t) { return e.start_ns < t; }) -
                               view.events.begin());
    // A window whose steps end early (a long stretch without steps after
    // them) carries at most half of itself: the rest is analysed here.
    if (kept < view.events.size() / 2) kept = view.events.size();
  }
  if (kept < view.events.size()) {
    carry_.assign(view.events.begin() + static_cast<std::ptrdiff_t>(kept), view.events.end());
  }
  for (size_t i = 0; i < kept; ++i) summary_.add(view.events[i]);
  if (kept < view.events.size()) {
    // Re-analysed without the carried events, so that nothing is counted
    // twice: the teardown findings of a cut window were the carried events'.
    view.events.resize(kept);
    a = analyze(view, options);
  }

  const bool predicted = predict_ != nullptr && predictions_.wanted() && !a.phases.empty();
  if (predicted) predict_(view, &a);
  std::vector<int> phase_map;
  add_phases(a, &phase_map);
  if (predicted) predictions_.add_window(a, phase_map);
  add_findings(a, phase_map, first, last, predicted);
  for (const StepFigures& s : a.step_figures) {
    if (step_figures_.size() >= kMaxStepFigures) break;
    if (s.span.phase_index < 0 || static_cast<size_t>(s.span.phase_index) >= phase_map.size()) continue;
    StepFigures moved = s;
    moved.host_blocked_ns = 0;  // from the merged findings' steps, in analysis()
    const int merged = phase_map[static_cast<size_t>(s.span.phase_index)];
    moved.span.phase_index = static_cast<int16_t>(merged);
    moved.span.step += static_cast<uint32_t>(phase_steps_before_[static_cast<size_t>(merged)]);
    step_figures_.push_back(moved);
  }
  // Step numbers go on in the next window.
  for (size_t p = 0; p < a.phases.size(); ++p) {
    phase_steps_before_[static_cast<size_t>(phase_map[p])] += a.phases[p].steps;
  }
}

void WindowedAnalysis::add_phases(const Analysis& a, std::vector<int>* phase_map) {
  if (a.steps.detected) {
    if (!steps_.detected) {
      steps_ = a.steps;
      steps_.step_ns = a.steps.step_ns * static_cast<double>(a.steps.steps);  // a sum until analysis()
    } else {
      steps_.steps += a.steps.steps;
      steps_.steady_end_ns = std::max(steps_.steady_end_ns, a.steps.steady_end_ns);
      steps_.end_ns = std::max(steps_.end_ns, a.steps.end_ns);
      steps_.step_ns += a.steps.step_ns * static_cast<double>(a.steps.steps);
    }
  }
  // Steps from markers, NVTX ranges or backward passes in the first window
  // make the run a training loop: a later window without them (a long
  // evaluation) found its passes by their pattern, as "loop"; they are the
  // loop's further phases, "eval" as the whole trace would name them.
  const bool training = !phases_.empty() && is_training_source(phases_[0].source);
  for (PhaseInfo p : a.phases) {
    if (training && p.source == StepSource::kPattern && p.name.rfind("loop", 0) == 0) {
      p.name = "eval" + p.name.substr(4);
    }
    auto it = std::find_if(phases_.begin(), phases_.end(), [&](const PhaseInfo& q) { return q.name == p.name; });
    const double steps = static_cast<double>(p.steps);
    if (it == phases_.end()) {
      phase_map->push_back(static_cast<int>(phases_.size()));
      phases_.push_back(p);
      phase_step_ns_sum_.push_back(p.step_ns * steps);
      phase_median_ns_sum_.push_back(p.median_step_ns * steps);
      phase_steps_before_.push_back(0);
      continue;
    }
    const size_t m = static_cast<size_t>(it - phases_.begin());
    phase_map->push_back(static_cast<int>(m));
    PhaseInfo& q = *it;
    q.steps += p.steps;
    q.start_ns = std::min(q.start_ns, p.start_ns);
    q.end_ns = std::max(q.end_ns, p.end_ns);
    q.interrupted_steps += p.interrupted_steps;
    if (q.calls_per_step == 0) q.calls_per_step = p.calls_per_step;
    phase_step_ns_sum_[m] += p.step_ns * steps;
    phase_median_ns_sum_[m] += p.median_step_ns * steps;
  }
}

void WindowedAnalysis::add_findings(const Analysis& a, const std::vector<int>& phase_map, bool first, bool last,
                                    bool predicted) {
  // Whether this window holds steps of the main phase (a later window may
  // hold only evaluation passes, or nothing with steps).
  const bool main_steps = !a.phases.empty() && !phase_map.empty() && phase_map[0] == 0;
  if (main_steps) last_main_window_ = windows_;
  for (const Finding& found : a.findings) {
    Finding f = found;
    // Before a later window's first step, or (a window kept whole) after
    // its last: work of the job that the whole trace would place in the
    // main phase's steps if training goes on after this window, else in
    // its teardown. Which, analysis() knows: kept apart until then.
    const bool before = !first && f.phase == Phase::kWarmup, after = !last && f.phase == Phase::kTeardown;
    if (before && main_steps) {
      f.phase = Phase::kSteady;  // training goes on in this very window
      f.phase_index = phases_.empty() ? -1 : 0;
      f.step_counts.clear();
    } else if (before || after) {
      f.phase = Phase::kTeardown;
      f.phase_index = kUndecidedBase - static_cast<int>(windows_);
      f.step_counts.clear();
    } else if (f.phase_index >= 0 && static_cast<size_t>(f.phase_index) < phase_map.size()) {
      f.phase_index = phase_map[static_cast<size_t>(f.phase_index)];
    } else if (f.phase == Phase::kSteady) {
      f.phase_index = -1;
    }
    const SiteKey key{static_cast<int>(f.category), static_cast<int>(f.phase), f.phase_index, f.stack_id,
                      f.waiter_stack_id, f.api_sequence, static_cast<int>(f.cause)};
    auto [it, added] = finding_of_.emplace(key, findings_.size());
    const double weight = static_cast<double>(std::max<uint64_t>(f.count, 1));
    const uint64_t steps_before = f.phase_index >= 0 ? phase_steps_before_[static_cast<size_t>(f.phase_index)] : 0;
    const WindowedPredictions::Sum prediction =
        predicted && f.phase == found.phase ? predictions_.finding_sum(a, found) : WindowedPredictions::Sum{};
    if (added) {
      for (FindingStepCount& s : f.step_counts) s.step += static_cast<uint32_t>(steps_before);
      findings_.push_back(std::move(f));
      severity_sum_.push_back(found.severity * weight);
      prediction_sum_.push_back(prediction);
      continue;
    }
    for (FindingStepCount& s : f.step_counts) s.step += static_cast<uint32_t>(steps_before);
    add_to(findings_[it->second], f);
    severity_sum_[it->second] += found.severity * weight;
    prediction_sum_[it->second].add(prediction);
  }
}

Analysis WindowedAnalysis::analysis() const {
  Analysis a;
  a.steps = steps_;
  if (a.steps.steps > 0) a.steps.step_ns = steps_.step_ns / static_cast<double>(a.steps.steps);
  // A further phase that one window found, but that takes under
  // kMinPhaseShare of the main phase's time over the whole trace, is no
  // phase (as segmentation.cpp would judge it seeing the whole): its work
  // is the main phase's extra work.
  std::vector<int> phase_to(phases_.size(), 0);
  const double main_ns = phases_.empty() ? 0 : phase_step_ns_sum_[0];
  for (size_t p = 0; p < phases_.size(); ++p) {
    if (p > 0 && phase_step_ns_sum_[p] < kMinPhaseShare * main_ns) continue;
    phase_to[p] = static_cast<int>(a.phases.size());
    PhaseInfo phase = phases_[p];
    const double n = static_cast<double>(phase.steps);
    if (n > 0) {
      phase.step_ns = phase_step_ns_sum_[p] / n;
      phase.median_step_ns = phase_median_ns_sum_[p] / n;  // the windows' medians, weighted: near enough
    }
    a.phases.push_back(phase);
  }
  std::map<SiteKey, size_t> merged_of;
  std::vector<double> severity_sum;
  std::vector<WindowedPredictions::Sum> prediction_sum;
  std::vector<int> predicted_phase;  // the windows' merged phase of each finding's prediction (-1: none)
  for (size_t i = 0; i < findings_.size(); ++i) {
    Finding f = findings_[i];
    if (f.phase_index <= kUndecidedBase) {
      // At a window's edge without main-phase steps: inside the main
      // phase if a later window has its steps, else the run's teardown.
      const size_t window = static_cast<size_t>(kUndecidedBase - f.phase_index);
      const bool inside = last_main_window_ > window && !phases_.empty();
      f.phase = inside ? Phase::kSteady : Phase::kTeardown;
      f.phase_index = inside ? 0 : -1;
    }
    int prediction_phase = -1;
    if (f.phase_index >= 0) {
      const int to = phase_to[static_cast<size_t>(f.phase_index)];
      const bool dropped = f.phase_index > 0 && to == 0;
      if (!dropped && f.phase == Phase::kSteady) prediction_phase = f.phase_index;
      f.phase_index = to;
      if (dropped) {
        f.step_counts.clear();  // steps of the phase that is no more
        f.steps_with = 0;
      }
    }
    const SiteKey key{static_cast<int>(f.category), static_cast<int>(f.phase), f.phase_index, f.stack_id,
                      f.waiter_stack_id, f.api_sequence, static_cast<int>(f.cause)};
    auto [it, added] = merged_of.emplace(key, a.findings.size());
    const WindowedPredictions::Sum prediction =
        prediction_phase >= 0 ? prediction_sum_[i] : WindowedPredictions::Sum{};
    if (added) {
      a.findings.push_back(std::move(f));
      severity_sum.push_back(severity_sum_[i]);
      prediction_sum.push_back(prediction);
      predicted_phase.push_back(prediction_phase);
    } else {
      add_to(a.findings[it->second], f);
      severity_sum[it->second] += severity_sum_[i];
      prediction_sum[it->second].add(prediction);
      if (predicted_phase[it->second] < 0) predicted_phase[it->second] = prediction_phase;
    }
  }
  for (size_t i = 0; i < a.findings.size(); ++i) {
    Finding& f = a.findings[i];
    std::sort(f.step_counts.begin(), f.step_counts.end(),
              [](const FindingStepCount& x, const FindingStepCount& y) { return x.step < y.step; });
    f.severity = severity_sum[i] / static_cast<double>(std::max<uint64_t>(f.count, 1));
    const PhaseInfo* phase = f.phase == Phase::kSteady && f.phase_index >= 0 ? &a.phases[static_cast<size_t>(f.phase_index)]
                                                                            : nullptr;
    if (phase == nullptr || phase->steps == 0) continue;
    f.steps_with = std::min<uint64_t>(f.steps_with, phase->steps);
    // Periodic: the median spacing of the steps kept, else spaced evenly
    // over every window's steps.
    set_per_step_figures(f, phase->steps, phase->step_ns);
    predictions_.apply(prediction_sum[i], predicted_phase[i], *phase, &f);
  }
  a.all_fixed = predictions_.all_fixed(a.phases, phase_to);
  std::stable_sort(a.findings.begin(), a.findings.end(), ranks_before);
  for (const StepFigures& figures : step_figures_) {
    const size_t p = static_cast<size_t>(figures.span.phase_index);
    if (p > 0 && phase_to[p] == 0) continue;  // a phase that is no more
    a.step_figures.push_back(figures);
    a.step_figures.back().span.phase_index = static_cast<int16_t>(phase_to[p]);
  }
  std::stable_sort(a.step_figures.begin(), a.step_figures.end(), [](const StepFigures& x, const StepFigures& y) {
    return std::make_pair(int{x.span.phase_index}, x.span.step) <
           std::make_pair(int{y.span.phase_index}, y.span.step);
  });
  add_blocked_time(&a);
  return a;
}

ApiSummary WindowedAnalysis::summary(uint64_t events_dropped) const { return summary_.finish(events_dropped); }

}  // namespace syncscope
