#include "analysis/trace_analysis.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>

#include "analysis/predictions.h"
#include "analysis/windowed_read.h"
#include "trace/time_window.h"
#include "trace/trace_stream.h"

namespace syncscope {
namespace {

// Past this size, a trace's reading is told as it goes (options.progress):
// reading a long trace and analysing it take seconds to minutes.
constexpr uintmax_t kProgressBytes = 256u << 20;

EventSpan span_of(const std::vector<Event>& events) {
  EventSpan span;
  for (const Event& e : events) {
    if (!span.any) span.start_ns = e.start_ns;  // events are sorted by start
    span.end_ns = std::max(span.end_ns, e.end_ns);
    span.any = true;
  }
  return span;
}

std::vector<uint32_t> threads_of(const std::vector<Event>& events) {
  std::set<uint32_t> threads;
  for (const Event& e : events) threads.insert(e.tid);
  return {threads.begin(), threads.end()};
}

// `--between` on a trace too long to hold whole: only the stretch's events
// are kept as it is read.
ProcessTrace read_stretch(TraceStream& stream, uint64_t window_events, std::pair<uint64_t, uint64_t> between) {
  std::vector<Event> window, kept;
  while (stream.next(window_events, &window)) {
    for (const Event& e : window) {
      if (e.start_ns >= between.first && e.start_ns <= between.second) kept.push_back(e);
    }
  }
  std::stable_sort(kept.begin(), kept.end(), starts_before);
  ProcessTrace trace = std::move(stream.tables());
  trace.events = std::move(kept);
  return trace;
}


}  // namespace

AnalysedTrace analyze_read_trace(ProcessTrace trace, const StepOptions& steps, const CodeOwnershipOptions& code) {
  AnalysedTrace out;
  out.summary = summarize(trace);
  if (!trace.events.empty()) {  // all dropped: nothing to analyse
    out.analysis = analyze(trace, steps);
    add_predictions(trace, &out.analysis, code);
  }
  out.span = span_of(trace.events);
  out.threads = threads_of(trace.events);
  out.trace = std::move(trace);
  return out;
}

Segmentation segment_read_trace(const ProcessTrace& trace, const StepOptions& steps) {
  return segment_run(trace.events, steps);
}

absl::StatusOr<AnalysedTrace> analyze_trace(const std::string& file, const TraceAnalysisOptions& options,
                                            uint64_t held_events) {
  // Long traces folded: runs of aggregated launches stay runs, so memory
  // and time follow the trace's runs and other calls, not its launches.
  const ReadOptions read{.fold_launch_runs = true, .fold_above_calls = options.fold_above_calls};
  absl::StatusOr<std::unique_ptr<TraceStream>> opened = TraceStream::open(file, read);
  if (!opened.ok()) return opened.status();
  TraceStream& stream = **opened;
  const uint64_t events = stream.counted_events();
  const bool too_long =
      events > options.window_events || held_events + events > kHeldWindows * options.window_events;
  // A GPU timeline is joined to the events of the whole trace: read whole.
  if (!too_long || stream.has_gpu_work()) {
    ProcessTrace trace = stream.read_whole();
    if (options.between) restrict_to_stretch(trace, options.between->first, options.between->second);
    return analyze_read_trace(std::move(trace), options.steps, options.code);
  }
  if (options.between) {
    ProcessTrace trace = read_stretch(stream, options.window_events, *options.between);
    restrict_to_stretch(trace, options.between->first, options.between->second);
    return analyze_read_trace(std::move(trace), options.steps, options.code);
  }
  return analyze_in_windows(stream, options);
}

AnalysedTraces analyze_traces(const std::vector<std::string>& files, const TraceAnalysisOptions& options) {
  AnalysedTraces out;
  uint64_t held_events = 0;  // of the traces read whole, kept until the report is made
  for (const std::string& file : files) {
    // Progress for the long ones (a day-long job's trace): what is read, then how many calls.
    std::error_code size_error;
    const uintmax_t bytes = std::filesystem::file_size(file, size_error);
    const bool long_read = !size_error && bytes >= kProgressBytes && options.progress;
    const auto began = std::chrono::steady_clock::now();
    if (long_read) {
      char megabytes[32];
      std::snprintf(megabytes, sizeof(megabytes), "%.0f", static_cast<double>(bytes) / 1e6);
      options.progress("reading " + file + " (" + megabytes + " MB)...");
    }
    TraceAnalysisOptions this_one = options;
    if (!long_read) this_one.progress = nullptr;
    absl::StatusOr<AnalysedTrace> analysed = analyze_trace(file, this_one, held_events);
    if (!analysed.ok()) {
      out.unreadable.emplace_back(analysed.status().message());
      continue;
    }
    if (long_read) {
      char seconds[32];
      std::snprintf(seconds, sizeof(seconds), "%.1f",
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
      options.progress("read and analysed " + std::to_string(analysed->summary.events) + " calls in " + seconds +
                       " s" + (analysed->windows > 0 ? ", window by window" : ""));
    }
    held_events += analysed->trace.events.size();
    out.traces.push_back(std::move(*analysed));
  }
  return out;
}

}  // namespace syncscope
