// The one entry point of the analysis: a trace file in, one result out.
// `analyze_trace` reads the trace whole, or, when it is too long to hold
// (a day-long job's), in windows of events that are analysed as they are
// read (detectors/windowed_analysis.h); either way the caller gets the same
// kind of result and need not know how it was read. `report/` renders the
// results, `policy/` judges them; `tools/` only chooses the options.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "detectors/analysis.h"
#include "detectors/api_summary.h"
#include "segmentation/segmentation.h"
#include "trace/code_ownership.h"
#include "trace/reader.h"

namespace syncscope {

// How long a trace may be to be read whole, and what to keep of it.
struct TraceAnalysisOptions {
  StepOptions steps;
  // `report --between START,END`: only what began in this stretch of the
  // trace clock (CLOCK_MONOTONIC ns) is analysed (trace/time_window.h).
  std::optional<std::pair<uint64_t, uint64_t>> between;
  // A trace of more events (read folded) than this is read and analysed in
  // windows of this many (SYNCSCOPE_WINDOW_EVENTS, read by tools/).
  uint64_t window_events = 1000000;
  // Traces of more calls than this are read folded (trace/reader.h, ReadOptions).
  uint64_t fold_above_calls = 8000000;
  // Progress of a long read ("analysed window 3 ..."); none when empty.
  std::function<void(const std::string&)> progress;
  // --user-code, --library-code: whose line a what-if's statement is
  // (whatif/statement_span.h), as the report names the lines.
  CodeOwnershipOptions code;
};

// Past this many windows' worth of events held for the report (a directory
// of many ranks), further traces are analysed as they are read, in windows.
inline constexpr uint64_t kHeldWindows = 4;

// The stretch of time a trace's events cover: the first call's start to the
// latest end (`any` false: no event at all, every call dropped).
struct EventSpan {
  bool any = false;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

// One process's trace, analysed.
struct AnalysedTrace {
  // The trace's tables (stacks, Python code, modules, threads, process
  // facts, drop counts) and, when it was read whole, its events; none when it
  // was read in windows (the analysis holds what they said).
  ProcessTrace trace;
  Analysis analysis;
  ApiSummary summary;
  EventSpan span;
  std::vector<uint32_t> threads;  // every thread that made a recorded call, ascending
  uint64_t windows = 0;           // windows of events it was read in (0: read whole)
};

// `held_events`: events of traces already read whole and held for the
// report; past kHeldWindows windows' worth, this one is read in windows too.
absl::StatusOr<AnalysedTrace> analyze_trace(const std::string& file, const TraceAnalysisOptions& options,
                                            uint64_t held_events = 0);

// Several traces for one report (every rank of a job), in order; those that
// could not be read are left out and named in `unreadable` (why).
struct AnalysedTraces {
  std::vector<AnalysedTrace> traces;
  std::vector<std::string> unreadable;
};
AnalysedTraces analyze_traces(const std::vector<std::string>& files, const TraceAnalysisOptions& options);

// A trace already read whole (a test's, a stretch of one), analysed.
AnalysedTrace analyze_read_trace(ProcessTrace trace, const StepOptions& steps, const CodeOwnershipOptions& code = {});

// Only its segmentation into phases and steps, every event's place
// (`syncscope dump --phases`).
Segmentation segment_read_trace(const ProcessTrace& trace, const StepOptions& steps);

}  // namespace syncscope
