// `syncscope run [options] -- CMD ARGS...`: start CMD with the preload,
// forward signals to it, wait, print the report, return CMD's status.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/report_command.h"
#include "tools/subcommand.h"

namespace syncscope {

struct RunOptions {
  std::string output_dir;  // "" = ./syncscope-<timestamp>
  bool force = false;      // reuse a directory that holds traces (their files are removed)
  bool report = true;
  ReportSettings report_settings;
  std::optional<unsigned> flush_ms;
  std::optional<unsigned> ring_events;
  std::optional<unsigned> max_trace_mib;  // --max-trace-size, rounded up to MiB
  std::string detail;                     // --detail: "full", "aggregated", or "" (the recorder's default)
  bool stacks = true;
  bool gpu_timeline = false;  // --gpu-timeline: SYNCSCOPE_GPU_TIMELINE=1 (CUPTI)
  std::string gpu_sampling;   // SYNCSCOPE_GPU_TIMELINE_SAMPLING: "" (default windows), "full" or "W/P" ms
  bool dormant = false;       // hooks in, nothing recorded until `syncscope attach`
  std::vector<std::string> command;
};

// The child's exit code, 128+signal if a signal ended it, 126/127 if it could
// not be started, 2 for syncscope's own usage errors. When the child
// succeeded: under a gate, 4 (kIncompleteRecordingExitCode) if the recording
// is incomplete (also when the output directory is unusable: the command is
// then not run), else the gate's exit code (default 3) if its findings fail
// the policy; 1 if the report could not be made or written.
int run_command(const RunOptions& options);

// `run` and its options (tools/subcommand.h).
void add_run_command(CLI::App& app, SubcommandContext& context);

}  // namespace syncscope
