// The recording as a Chrome/Perfetto trace (--format perfetto=FILE): the
// trace-event "JSON Object Format" that ui.perfetto.dev and chrome://tracing
// open (docs/pictures.md). Per process: each thread's CUDA calls, a track
// per phase with its steps, the findings as instant events where they
// happened; beside it a "GPU" process with a track per stream holding the
// kernels, copies and memsets of the GPU timeline.
#pragma once

#include <cstddef>
#include <string>

#include "report/report_model.h"

namespace syncscope {

// Bounds the file (a long run records tens of millions of calls): past this
// many events the earliest are kept and the trace says what was cut. A
// million events is about 220 MB of JSON, which chrome://tracing and
// ui.perfetto.dev still load; twice that nears a browser's string limit.
inline constexpr size_t kPerfettoMaxEvents = 1000000;

struct PerfettoOptions {
  size_t max_events = kPerfettoMaxEvents;  // timeline events, metadata not counted
};

// The JSON text. Strings from the trace that are not UTF-8 (paths, kernel
// names) have their bad bytes replaced, so the file always parses.
std::string perfetto_trace(const Report& report, const PerfettoOptions& options = {});

}  // namespace syncscope
