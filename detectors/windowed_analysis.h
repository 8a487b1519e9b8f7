// The analysis of a trace too long to hold whole (a day-long job's), one
// window of events at a time (trace/trace_stream.h), in memory that follows
// the window and the sites, not the trace.
//
// Each window is analysed as a trace of its own (detectors/analysis.h),
// then its results are added to the whole:
// - A window ends at its last steady step's end: the events after it (a
//   step the window's end cut in two) are carried into the next window,
//   which starts on a step boundary. The last window keeps its teardown.
// - Only the first window has a warm-up (`warmup_steps` 0 after it); what a
//   later window finds before its first step is steady work of the job and
//   counts with the main phase.
// - Phases add up by name (steps, time, interrupted steps); findings by
//   site (category, cause, phase, call site, waiter, API sequence): counts,
//   host time and bytes add up, per-step figures are recomputed over all
//   steps of their phase, severity is the count-weighted mean of the windows'.
// - The API table (ApiSummary) covers each event once.
// Per-step detail (step figures, a finding's steps) is kept for the first
// kMaxStepFigures steps only: the HTML page's charts of a day-long trace
// show its beginning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "detectors/analysis.h"
#include "detectors/api_summary.h"
#include "detectors/windowed_predictions.h"

namespace syncscope {

class WindowedAnalysis {
 public:
  static constexpr size_t kMaxStepFigures = 20000;

  // `predict` adds predictions to a window's analysis (the analysis's entry
  // point gives it: detectors/ cannot replay); the first windows with steps
  // get them, and the whole's are their step-weighted means
  // (windowed_predictions.h).
  using Predict = std::function<void(const ProcessTrace& window, Analysis* analysis)>;
  explicit WindowedAnalysis(const StepOptions& options, Predict predict = nullptr)
      : options_(options), predict_(std::move(predict)) {}

  // Analyses the next window: `window` (in start order) after what the
  // previous window carried over; `tables` the trace read so far (its
  // Python stacks and strings; its events are not looked at). `last`: no
  // window follows.
  void add(const ProcessTrace& tables, std::vector<Event> window, bool last);

  size_t windows() const { return windows_; }
  // Events carried over, waiting for the next window.
  size_t carried() const { return carry_.size(); }
  // The whole trace's analysis and API table; after the last window.
  Analysis analysis() const;
  ApiSummary summary(uint64_t events_dropped) const;

 private:
  using SiteKey = std::tuple<int, int, int, uint32_t, uint32_t, std::string, int>;  // see add()
  void add_phases(const Analysis& a, std::vector<int>* phase_map);
  void add_findings(const Analysis& a, const std::vector<int>& phase_map, bool first, bool last, bool predicted);

  StepOptions options_;
  Predict predict_;
  WindowedPredictions predictions_;
  std::vector<WindowedPredictions::Sum> prediction_sum_;  // per finding
  size_t windows_ = 0;
  size_t last_main_window_ = 0;  // the last window (1-based) with steps of the main phase
  std::vector<Event> carry_;
  // The whole so far.
  StepInfo steps_;
  std::vector<PhaseInfo> phases_;
  std::vector<double> phase_step_ns_sum_, phase_median_ns_sum_;  // steps-weighted sums
  std::vector<Finding> findings_;
  std::map<SiteKey, size_t> finding_of_;
  std::vector<double> severity_sum_;  // count-weighted, per finding
  std::vector<StepFigures> step_figures_;
  std::vector<uint64_t> phase_steps_before_;  // per phase: steps of earlier windows (step numbers go on)
  ApiSummaryBuilder summary_;  // each event once: a window's carried events when the next one takes them
};

}  // namespace syncscope
