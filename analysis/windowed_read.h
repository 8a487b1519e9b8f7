// A trace too long to hold whole, read and analysed window by window
// (trace/trace_stream.h, detectors/windowed_analysis.h), so that memory
// follows the window, not the trace.
#pragma once

#include "analysis/trace_analysis.h"
#include "trace/trace_stream.h"

namespace syncscope {

// Reads the rest of `stream` in windows of options.window_events events.
// A short last window (the run's end, an evaluation after training) is
// analysed with the one before it, not as a trace of its own without the
// training's steps.
AnalysedTrace analyze_in_windows(TraceStream& stream, const TraceAnalysisOptions& options);

}  // namespace syncscope
