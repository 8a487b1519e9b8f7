// Recorder settings, read once from the environment when the preload loads.
// The launcher (tools/) sets these; a user who sets LD_PRELOAD by hand can too.
// The variables' names are declared in trace/environment.h.
#pragma once

#include <cstdint>

namespace syncscope::preload {

struct Config {
  // What config_from_environment() could not use, one "NAME=VALUE: why"
  // per line, said once the log level is known (recorder_init).
  char knob_warnings[1024] = {};
  bool enabled = true;                 // SYNCSCOPE_DISABLE=1 turns every hook into a pass-through
  char output_dir[4096] = {};          // SYNCSCOPE_OUTPUT_DIR, default ./syncscope-trace
  uint32_t flush_ms = 50;              // SYNCSCOPE_FLUSH_MS: how stale a killed process's trace may be
  // SYNCSCOPE_EXIT_FLUSH_MS: how long the last drain at exit (or at a
  // session's stop) may write events; what is left then is counted, not
  // written, and the end record still goes out (the exit waits this + 1.5 s).
  uint32_t exit_flush_ms = 3500;
  uint32_t max_trace_mib = 0;  // SYNCSCOPE_MAX_TRACE_MB: past this size, events are counted, not written (0: no limit)
  uint32_t ring_events = 16384;        // SYNCSCOPE_RING_EVENTS per thread (rounded up to a power of 2)
  // SYNCSCOPE_DETAIL=full: every launch an event; by default a thread's
  // launches are written as runs of repeated sequences (trace/launch_runs.h),
  // except while the GPU timeline is on (its join needs each launch).
  bool aggregate_launches = true;
  bool stacks = true;                  // SYNCSCOPE_STACKS=0 disables stack capture (native and Python)
  bool python = true;                  // SYNCSCOPE_PYTHON=0 disables Python frames
  int log_level = 1;                   // SYNCSCOPE_LOG: 0 quiet, 1 warnings, 2 debug
  bool force_monotonic_clock = false;  // SYNCSCOPE_CLOCK=monotonic: never use the TSC
  bool gpu_timeline = false;           // SYNCSCOPE_GPU_TIMELINE=1: CUPTI timeline (docs/gpu-timeline.md)
  enum class ApiRecords : uint8_t { kCalls, kAll, kOff };
  ApiRecords gpu_api_records = ApiRecords::kCalls;  // SYNCSCOPE_GPU_API_RECORDS=calls|all|off
  bool gpu_timestamp_callback = true;               // SYNCSCOPE_GPU_TIMESTAMPS=offset: false
  // SYNCSCOPE_GPU_TIMELINE_SAMPLING=full (period 0) or W/P ms: the timeline
  // records a window of W ms every P ms (docs/gpu-timeline.md, "Sampling").
  uint32_t gpu_burst_ms = 1000;
  uint32_t gpu_period_ms = 10000;
  // The first window opens this long after recording starts (past start-up),
  // or as soon as a window fits in the period; 0 for attach sessions.
  uint32_t gpu_first_burst_delay_ms = 2000;
  // Between bursts CUPTI is finalized (SYNCSCOPE_GPU_TIMELINE_DETACH=0: it
  // stays attached with its kinds off). false for attach sessions: on an
  // H200, a Trainer process whose sessions started and stopped every 1.2 s
  // with 100 ms bursts a second died of heap corruption inside the process
  // in 3 runs of 3 when CUPTI was finalized between bursts, and ran clean
  // attached (docs/gpu-timeline.md, "Sampling"); the cause is not found.
  bool gpu_detach_between_bursts = true;
  bool dormant = false;                // SYNCSCOPE_DORMANT=1: hooks in, recording off until `syncscope attach`
  // SYNCSCOPE_STATUS_FD=FD:PID:DEV:INO (trace/recording_status.h): where to
  // tell `syncscope run` that the recording failed; status_fd -1: nowhere.
  int status_fd = -1;
  int status_owner = 0;  // the launcher's pid, to reopen /proc/PID/fd/FD
  uint64_t status_dev = 0, status_ino = 0;
};

// Parses the environment; no allocation, safe to call from a library constructor.
Config config_from_environment();

// SYNCSCOPE_GPU_TIMELINE_SAMPLING's syntax: "full" or "W/P" (ms, 1 <= W < P
// <= one day) into c; false (c unchanged) for anything else.
bool parse_gpu_sampling(const char* value, Config* c);

// The process-wide settings (valid after recorder initialisation).
const Config& config();
void set_config(const Config& config);

}  // namespace syncscope::preload
