// The environment variables through which the launcher (tools/) configures
// the recorder (preload/core/config.cpp reads them when the library loads). A
// user who sets LD_PRELOAD by hand sets them too, so the names are part of
// the interface and never change. Values: see preload/core/config.h.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace syncscope::env {

inline constexpr const char* kDisable = "SYNCSCOPE_DISABLE";             // 1: every hook passes through
inline constexpr const char* kOutputDir = "SYNCSCOPE_OUTPUT_DIR";        // where traces go
inline constexpr const char* kFlushMs = "SYNCSCOPE_FLUSH_MS";            // collector period
inline constexpr const char* kExitFlushMs = "SYNCSCOPE_EXIT_FLUSH_MS";   // the last drain's time bound
// A trace file's size limit in MiB (0 or unset: none): past it, events are
// counted, not written (`syncscope run --max-trace-size`).
inline constexpr const char* kMaxTraceMiB = "SYNCSCOPE_MAX_TRACE_MB";
// "full": every launch written as an event; "aggregated" (the default):
// launches as runs of repeated sequences (docs/trace-format.md).
inline constexpr const char* kDetail = "SYNCSCOPE_DETAIL";
inline constexpr const char* kRingEvents = "SYNCSCOPE_RING_EVENTS";      // per-thread ring size
inline constexpr const char* kStacks = "SYNCSCOPE_STACKS";               // 0: no stack capture
inline constexpr const char* kPython = "SYNCSCOPE_PYTHON";               // 0: no Python frames
inline constexpr const char* kLog = "SYNCSCOPE_LOG";                     // quiet | debug
inline constexpr const char* kClock = "SYNCSCOPE_CLOCK";                 // monotonic: never the TSC
inline constexpr const char* kDormant = "SYNCSCOPE_DORMANT";             // 1: wait for `syncscope attach`
inline constexpr const char* kGpuTimeline = "SYNCSCOPE_GPU_TIMELINE";    // 1: CUPTI timeline (docs/gpu-timeline.md)
// How much of the run the timeline records (docs/gpu-timeline.md,
// "Sampling"): "full", or "W/P" in milliseconds: a window of W ms every P ms
// (default 1000/10000). Read when SYNCSCOPE_GPU_TIMELINE=1.
inline constexpr const char* kGpuTimelineSampling = "SYNCSCOPE_GPU_TIMELINE_SAMPLING";
// "0": CUPTI starts without borrowing the device's primary context (a
// diagnostic: preload/gpu_timeline/borrowed_context.h).
inline constexpr const char* kGpuTimelineBorrowContext = "SYNCSCOPE_GPU_TIMELINE_BORROW_CONTEXT";
// "0": between sampling windows CUPTI stays attached with its kinds off,
// instead of being detached (cuptiFinalize) and attached again for the
// next window (docs/gpu-timeline.md, "Sampling"; a diagnostic).
inline constexpr const char* kGpuTimelineDetach = "SYNCSCOPE_GPU_TIMELINE_DETACH";

// The sampling value "W/P" (ms; 1 <= W < P <= one day), as the recorder
// reads it and writes it back in the trace (process key
// gpu_timeline.sampling): false for anything else ("full" included). No
// allocation: read in the recorder's constructor.
inline bool parse_gpu_sampling_burst(const char* value, uint32_t* window_ms, uint32_t* period_ms) {
  if (value == nullptr || *value < '0' || *value > '9') return false;
  char* end = nullptr;
  const unsigned long long window = std::strtoull(value, &end, 10);
  if (*end != '/' || end[1] < '0' || end[1] > '9') return false;
  const unsigned long long period = std::strtoull(end + 1, &end, 10);
  if (*end != '\0' || window == 0 || window >= period || period > 86400000ull) return false;
  *window_ms = static_cast<uint32_t>(window);
  *period_ms = static_cast<uint32_t>(period);
  return true;
}
inline constexpr const char* kCuptiLibrary = "SYNCSCOPE_CUPTI_LIBRARY";  // which libcupti.so.13 to load
// CUPTI's API records (docs/gpu-timeline.md, "The join"): "calls" (default:
// the few kept calls), "all" (every runtime and driver call), "off" (none;
// GPU work joins its call by issue order).
inline constexpr const char* kGpuApiRecords = "SYNCSCOPE_GPU_API_RECORDS";
// "offset": convert CUPTI's timestamps by a measured offset instead of
// having CUPTI call the trace clock (docs/gpu-timeline.md, "Clocks").
inline constexpr const char* kGpuTimestamps = "SYNCSCOPE_GPU_TIMESTAMPS";
// The launcher's status channel (trace/recording_status.h).
inline constexpr const char* kStatusFd = "SYNCSCOPE_STATUS_FD";

// Read by the tools only: where libsyncscope.so is (tools/preload_locator.h).
inline constexpr const char* kPreload = "SYNCSCOPE_PRELOAD";
// Read by the report only: "0" reads none of the files a trace names (no ELF
// symbol tables, no source lines), so that a trace reports the same on every
// machine (tests/golden_reports; sites/recorded_files.h).
inline constexpr const char* kReportReadsRecordedFiles = "SYNCSCOPE_REPORT_READS_RECORDED_FILES";
// Read by preload/python/sitecustomize.py (Python: it cannot include this
// file), which registers the optimizer-step markers unless it is 0.
inline constexpr const char* kStepMarkers = "SYNCSCOPE_STEP_MARKERS";

}  // namespace syncscope::env
