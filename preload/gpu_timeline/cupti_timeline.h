// The GPU timeline (issue 13, docs/gpu-timeline.md): CUPTI's activity records
// of kernels, copies, memsets and synchronisations, with the runtime/driver
// API records they join through. CUPTI is dlopen'ed when recording starts,
// never linked; nothing here runs in a hooked call. Every failure leaves the
// recorder host-only with a process-info note ("gpu_timeline" = "off: why").
#pragma once

#include <string>

namespace syncscope {
class TraceWriter;
}

namespace syncscope::preload {

// When a trace is opened (first recorded call of a run, session start).
// Loads and enables CUPTI unless turned off; idempotent while active.
void gpu_timeline_start();
// Collector thread, each drain: notes, new kernel names and the records
// CUPTI has handed back; asks CUPTI for what it holds now and then.
// room false: the trace is at its size limit; the records are counted as dropped.
void gpu_timeline_drain(TraceWriter& writer, bool room = true);
// Collector thread, before its final drain (session end, exit): forced
// flush, kinds disabled, CUPTI released. Safe when never started.
void gpu_timeline_stop();

// Finding the library (cupti_locate.cpp): a dlopen handle, or nullptr with
// *why; *path says which file was opened.
void* open_cupti_library(std::string* path, std::string* why);

}  // namespace syncscope::preload
