// The keys of a trace's process facts (kProcess records, trace/format.h):
// written by the recorder (preload/recording/process_info.cpp, preload/attach/session.cpp),
// read by the report. Declared once here so the two sides cannot drift; the
// strings are part of the trace format (docs/trace-format.md), so an
// existing one never changes.
#pragma once

#include <string>
#include <string_view>

namespace syncscope::info_key {

// The command line, its arguments joined with spaces (for display); each
// argument also on its own, unjoined, as "argv0", "argv1", ...
inline constexpr const char* kArgv = "argv";
inline std::string argv_key(int index) { return kArgv + std::to_string(index); }

inline constexpr const char* kExe = "exe";  // /proc/self/exe
inline constexpr const char* kCwd = "cwd";  // the working directory (resolves relative source paths)
inline constexpr const char* kHostname = "hostname";

// Copied from the environment when set (torchrun's), under the variable's name.
inline constexpr const char* kRank = "RANK";
inline constexpr const char* kLocalRank = "LOCAL_RANK";
inline constexpr const char* kWorldSize = "WORLD_SIZE";

// Which CUDA runtime served the calls: a simulated one must never pass for a GPU.
inline constexpr const char* kCudaRuntime = "cuda_runtime";
inline constexpr const char* kCudaRuntimeReal = "real";
inline constexpr const char* kCudaRuntimeSimulated = "fake (simulated GPU)";

inline constexpr const char* kUnwinder = "unwinder";  // "libunwind" or "libgcc"
inline constexpr const char* kClock = "clock";        // "tsc" or "monotonic"
inline constexpr const char* kSyncscopeVersion = "syncscope_version";

// The GPU timeline (docs/gpu-timeline.md): "on", or "off: WHY" when it was
// asked for and could not start; absent when not asked for.
inline constexpr const char* kGpuTimeline = "gpu_timeline";
// The reason written when the timeline was not asked for ("off: " + this):
// the report says nothing of a timeline nobody asked for.
inline constexpr const char* kGpuTimelineNotAskedFor = "not asked for (syncscope run --gpu-timeline)";
// Whether a trace's kGpuTimeline value says the timeline was asked for
// ("on", or "off: WHY" for a reason other than not being asked).
inline bool gpu_timeline_asked_for(std::string_view state) {
  return !state.empty() && state.find(kGpuTimelineNotAskedFor) == std::string_view::npos;
}
inline constexpr const char* kGpuTimelineCupti = "gpu_timeline.cupti";             // the library and its API version
inline constexpr const char* kGpuTimelineClock = "gpu_timeline.clock";             // "callback" or "offset"
inline constexpr const char* kGpuTimelineKinds = "gpu_timeline.kinds";             // e.g. "kernel,memcpy,memset,sync"
inline constexpr const char* kGpuTimelineApiRecords = "gpu_timeline.api_records";  // what API records were asked for
inline constexpr const char* kGpuTimelineRefused = "gpu_timeline.refused";         // kinds CUPTI refused, and why
inline constexpr const char* kGpuTimelineDropped = "gpu_timeline.dropped";         // records lost (a count)
// "full", or "W/P": windows of W ms every P ms (docs/gpu-timeline.md, "Sampling").
inline constexpr const char* kGpuTimelineSampling = "gpu_timeline.sampling";
inline constexpr const char* kGpuTimelineThreadIds = "gpu_timeline.thread_ids";    // set when not system tids
// Between sampling windows: "detached (cuptiFinalize)" or "attached, kinds off".
inline constexpr const char* kGpuTimelineBetweenWindows = "gpu_timeline.between_windows";
// Why windows stopped opening part-way (CUPTI refused to attach again).
inline constexpr const char* kGpuTimelineStopped = "gpu_timeline.stopped";

// When the trace reached its size limit (run --max-trace-size): "LIMIT_BYTES
// at NS" (NS on the trace clock): events after it were counted, not written.
inline constexpr const char* kTraceSizeLimit = "trace.size_limit";
// How launches were written: "aggregated" (runs of repeated sequences,
// trace/launch_runs.h), "full", or "full (GPU timeline)".
inline constexpr const char* kTraceDetail = "trace.detail";
// How often the program closed the trace's descriptor (close_range, a
// daemon closing every fd) and the recorder reopened the file by its path.
inline constexpr const char* kTraceReopened = "trace.reopened";
// What recording cost the program, written with the trace's end: ns its
// threads spent capturing stacks and Python frames, how many captures, and
// the collector thread's CPU time (ns).
inline constexpr const char* kRecorderCaptureNs = "recorder.capture_ns";
inline constexpr const char* kRecorderCaptures = "recorder.captures";
inline constexpr const char* kRecorderCollectorCpuNs = "recorder.collector_cpu_ns";

// Written only for a session started by `syncscope attach`.
inline constexpr const char* kAttachMode = "attach.mode";       // one of the two values below
inline constexpr const char* kAttachModeDormant = "dormant";    // started with `syncscope run --dormant`
inline constexpr const char* kAttachModeInjected = "injected";  // loaded into the running process
inline constexpr const char* kAttachRedirectedSlots = "attach.redirected_slots";      // a count (injected)
inline constexpr const char* kAttachRedirectedObjects = "attach.redirected_objects";  // ", "-separated (injected)
// What an injected recorder could not see, one key per item, numbered from 1.
inline constexpr const char* kAttachNotSeenPrefix = "attach.not_seen.";
inline std::string attach_not_seen_key(int number) { return kAttachNotSeenPrefix + std::to_string(number); }
inline bool is_attach_not_seen_key(std::string_view key) { return key.starts_with(kAttachNotSeenPrefix); }

}  // namespace syncscope::info_key
