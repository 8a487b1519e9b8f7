// The environment `syncscope run` gives the recorded command: the user's own,
// with the preload prepended to LD_PRELOAD and the recorder's settings. A
// pure function, so the rules are unit-tested.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace syncscope {

struct RecorderSettings {
  std::string preload_path;  // absolute path of libsyncscope.so
  std::string output_dir;    // absolute trace directory
  // Each setting becomes a variable of trace/environment.h:
  std::optional<unsigned> flush_ms;     // SYNCSCOPE_FLUSH_MS when given
  std::optional<unsigned> ring_events;  // SYNCSCOPE_RING_EVENTS when given
  bool stacks = true;                   // SYNCSCOPE_STACKS=0 when false
  bool dormant = false;                 // SYNCSCOPE_DORMANT=1 when true (output_dir then unused)
  std::string status_channel{};         // SYNCSCOPE_STATUS_FD when not empty (never inherited otherwise)
  // Folder holding syncscope's sitecustomize.py (optimizer-step markers),
  // prepended to PYTHONPATH; empty: none.
  std::string python_hooks_dir{};
  bool gpu_timeline = false;  // SYNCSCOPE_GPU_TIMELINE=1 when true (else the inherited value)
  std::string gpu_sampling{}; // SYNCSCOPE_GPU_TIMELINE_SAMPLING when not empty (tools/gpu_sampling.h)
  std::optional<unsigned> max_trace_mib{};  // SYNCSCOPE_MAX_TRACE_MB when given
  std::string detail{};                     // SYNCSCOPE_DETAIL when not empty: "full" or "aggregated"
  // Sanitizer runtimes the command (or the preload) needs, which must come
  // before the preload in LD_PRELOAD (tools/sanitizer_runtimes.h).
  std::vector<std::string> sanitizer_runtimes{};
};

// The NVTX loader's variable: `syncscope run` sets it to the preload (which
// takes NVTX ranges) unless the environment already names a library.
inline constexpr const char* kNvtxInjectionVariable = "NVTX_INJECTION64_PATH";

// `environment` holds "KEY=VALUE" strings; the result likewise.
std::vector<std::string> child_environment(const std::vector<std::string>& environment,
                                           const RecorderSettings& settings);

}  // namespace syncscope
