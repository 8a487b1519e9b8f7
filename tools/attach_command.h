// `syncscope attach PID... | --all PATTERN`: record running processes for a
// while, then print the same report as `syncscope run`, leaving them as
// they were. A process started with `syncscope run --dormant` (or the
// preload and SYNCSCOPE_DORMANT=1) is reached through its control endpoint;
// any other is first given the recorder by ptrace injection
// (inject/ptrace_inject.h), which then redirects its import slots.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "tools/report_command.h"
#include "tools/subcommand.h"

namespace syncscope {

struct AttachOptions {
  std::vector<pid_t> pids;
  std::string pattern;                   // --all PATTERN
  std::optional<long long> duration_ms;  // none: until Ctrl-C or every target exited
  std::string output_dir;                // "" = ./syncscope-attach-<timestamp>
  bool force = false;
  bool inject = true;  // false: --no-inject, endpoints only
  int inject_timeout_ms = 10000;
  bool report = true;
  bool gpu_timeline = false;  // --gpu-timeline: each session also records the GPU timeline
  std::string gpu_sampling;   // "" (the default windows), "full" or "W/P" ms (tools/gpu_sampling.h)
  ReportSettings report_settings;
};

// 0, or the gate's exit code when the findings fail the policy; 1 when the
// report could not be made; 2 when no process could be attached (each
// refusal says why).
int attach_command(const AttachOptions& options);

// `attach` and its options (tools/subcommand.h).
void add_attach_command(CLI::App& app, SubcommandContext& context);

}  // namespace syncscope
