#include "tools/run_command.h"
#include "tools/pipe_signal.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "tools/byte_size.h"
#include "tools/child_environment.h"
#include "tools/gpu_sampling.h"
#include "tools/output_dir.h"
#include "tools/preload_locator.h"
#include "tools/recorder_status.h"
#include "tools/report_command.h"
#include "tools/report_options.h"
#include "tools/sanitizer_runtimes.h"
#include "tools/status_channel.h"
#include "trace/environment.h"
#include "trace/format.h"
#include "trace/recording_status.h"

extern char** environ;

namespace syncscope {
namespace {

volatile sig_atomic_t g_child = 0;
// Whether syncscope's parent signals its whole process group as well as
// syncscope (GNU timeout without --foreground: kill(child), then kill(0)).
bool g_parent_signals_group = false;

// Signals sent to syncscope alone by a person or a job manager (kill,
// SLURM, a parent's Popen.terminate()) go on to the recorded command, once.
// Those the command got already are not forwarded, or it would get them
// twice: ones the terminal sent to the foreground process group (Ctrl-C,
// si_code > 0), ones the command sent itself, ones from another member of
// our process group (a sibling's kill(0, ...)), and ones from a parent that
// signals the group too.
void forward_signal(int sig, siginfo_t* info, void*) {
  if (g_child <= 0) return;
  if (info != nullptr) {
    if (info->si_code > 0) return;
    const pid_t sender = info->si_pid;
    if (info->si_code == SI_USER && sender > 0 && sender != getpid()) {
      if (sender == g_child) return;
      if (getpgid(sender) == getpgrp() && (sender != getppid() || g_parent_signals_group)) return;
    }
  }
  kill(g_child, sig);
}

// GNU timeout, unless --foreground, signals its child and then the whole
// process group it leads (docs/security.md, "Signals").
bool parent_signals_group() {
  const pid_t parent = getppid();
  if (getpgid(parent) != getpgrp() || getpgrp() != parent) return false;
  std::ifstream in("/proc/" + std::to_string(parent) + "/cmdline", std::ios::binary);
  std::string arg;
  std::vector<std::string> argv;
  while (std::getline(in, arg, '\0')) argv.push_back(arg);
  if (argv.empty() || std::filesystem::path(argv[0]).filename() != "timeout") return false;
  // Its options come before the duration; -s and -k take a value.
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--foreground" || a == "-f") return false;
    if (a == "-s" || a == "-k" || a == "--signal" || a == "--kill-after") {
      ++i;
      continue;
    }
    if (a.empty() || a[0] != '-' || a == "--") break;
  }
  return true;
}

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

struct sigaction g_saved[std::size(kForwarded)];

// On: forward; off: back to what syncscope had before (nohup's ignored SIGHUP stays ignored).
void set_forwarding(bool on) {
  if (!on) {
    for (size_t i = 0; i < std::size(kForwarded); ++i) sigaction(kForwarded[i], &g_saved[i], nullptr);
    return;
  }
  struct sigaction sa {};
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < std::size(kForwarded); ++i) sigaction(kForwarded[i], &sa, &g_saved[i]);
}

sigset_t forwarded_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kForwarded) sigaddset(&set, sig);
  return set;
}

// --no-report drops what would go to standard output; reports asked for as
// files (--format json=FILE) are still written.
ReportSettings report_settings(const RunOptions& options) {
  ReportSettings report = options.report_settings;
  report.formats.clear();
  for (const OutputFormat& f : options.report_settings.formats) {
    if (options.report || !f.file.empty()) report.formats.push_back(f);
  }
  return report;
}

// The output directory cannot be created or written: refuse before the
// command runs (an hour of training would record nothing). Under a gate this
// is an incomplete recording like any other (exit status 4, the formats
// asked for say so); without one, syncscope's own error (2).
int refuse_unusable_output(const std::string& reason, const RunOptions& options) {
  ReportSettings report = report_settings(options);
  if (!report.analysis.policy.gate.enabled()) {
    spdlog::error("{} was not run: nothing could be recorded", options.command[0]);
    return 2;
  }
  spdlog::error("{} was not run: nothing could be recorded, and a gate was set", options.command[0]);
  report_traces({}, 0, {{0, kStatusOutputUnusable, reason}}, report);
  return kIncompleteRecordingExitCode;
}

}  // namespace

int run_command(const RunOptions& options) {
  if (options.command.empty()) {
    spdlog::error("nothing to run: syncscope run [options] -- COMMAND [ARGS...]");
    return 2;
  }
  std::vector<std::string> tried;
  std::string preload = locate_preload(&tried);
  if (preload.empty()) {
    std::string list;
    for (const auto& t : tried) list += "\n  " + t;
    spdlog::error("cannot find libsyncscope.so; looked at:{}\n(set {} to its path)", list, env::kPreload);
    return 2;
  }
  // Dormant: nothing is recorded until `syncscope attach`, which brings its
  // own output directory.
  std::string dir;
  if (!options.dormant) {
    dir = options.output_dir.empty() ? default_output_dir("syncscope") : options.output_dir;
    std::string unusable;
    switch (prepare_output_dir(dir, options.force, &unusable)) {
      case OutputDirState::kReady:
        break;
      case OutputDirState::kHoldsTraces:
        return 2;
      case OutputDirState::kUnusable:
        return refuse_unusable_output(unusable, options);
    }
    dir = std::filesystem::absolute(dir).lexically_normal().string();
  }
  // Where the recorders say what the traces cannot: that they could not be
  // written. Dormant processes answer `syncscope attach` instead.
  StatusChannel recorder_status;
  if (!options.dormant) {
    std::string error;
    if (!recorder_status.open(&error)) {
      spdlog::warn("{}: a trace the command cannot write would go unnoticed", error);
    }
  }

  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) environment.emplace_back(*e);
  RecorderSettings settings{preload,
                            dir,
                            options.flush_ms,
                            options.ring_events,
                            options.stacks,
                            options.dormant,
                            recorder_status.environment_value()};
  settings.python_hooks_dir = python_hooks_dir_for(preload);
  settings.gpu_timeline = options.gpu_timeline;
  settings.gpu_sampling = options.gpu_sampling;
  settings.max_trace_mib = options.max_trace_mib;
  settings.detail = options.detail;
  // An ASan-built program (or an ASan build of syncscope's own preload)
  // needs its sanitizer runtime before the preload (tools/sanitizer_runtimes.h).
  const char* path_variable = std::getenv("PATH");
  settings.sanitizer_runtimes =
      sanitizer_runtimes_needed(resolve_command(options.command[0], path_variable ? path_variable : ""));
  for (std::string& runtime : sanitizer_runtimes_needed(preload)) settings.sanitizer_runtimes.push_back(runtime);
  std::vector<std::string> child_env = child_environment(environment, settings);

  std::vector<char*> argv, envp;
  for (const auto& a : options.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : child_env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  std::cout.flush();
  // Signals that arrive between fork and the handlers' installation wait
  // (blocked) and are then forwarded, instead of killing syncscope alone.
  sigset_t forwarded = forwarded_set(), previous;
  sigprocmask(SIG_BLOCK, &forwarded, &previous);
  pid_t pid = fork();
  if (pid < 0) {
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    spdlog::error("fork failed: {}", std::strerror(errno));
    return 2;
  }
  if (pid == 0) {
    // Same process group as syncscope: the terminal's Ctrl-C reaches the child directly.
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    restore_sigpipe();
    recorder_status.inherit();
    execvpe(argv[0], argv.data(), envp.data());
    int err = errno;
    std::fprintf(stderr, "syncscope: cannot run '%s': %s\n", argv[0], std::strerror(err));
    _exit(err == ENOENT ? 127 : 126);
  }
  g_parent_signals_group = parent_signals_group();
  g_child = pid;
  if (options.dormant) {
    spdlog::info("dormant: {} runs as pid {}; record it with: syncscope attach {} (or attach --all PATTERN)",
                 options.command[0], pid, pid);
  }
  // While the child runs, syncscope survives SIGINT & co. (the report comes
  // after the child has died) and hands them on.
  set_forwarding(true);
  sigprocmask(SIG_SETMASK, &previous, nullptr);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      set_forwarding(false);
      spdlog::error("waitpid failed: {}", std::strerror(errno));
      return 2;
    }
  }
  g_child = 0;
  set_forwarding(false);  // Ctrl-C during the report stops syncscope again
  int code = 0;
  if (WIFEXITED(status)) {
    code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    code = 128 + WTERMSIG(status);
    spdlog::warn("{} was killed by signal {} ({})", options.command[0], WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
  if (options.dormant) return code;  // attach printed its own reports
  std::vector<RecordingProblem> problems = recording_problems(parse_recorder_status(recorder_status.read_all()), dir);
  if ((code == 126 || code == 127) && problems.empty()) {
    // The command never ran (or itself reported it could not run something).
    std::error_code ec;
    if (std::filesystem::is_empty(dir, ec)) return code;
  }
  spdlog::info("traces in {}", dir);
  ReportSettings report = report_settings(options);
  auto files = list_trace_files(dir);
  // No trace and nothing went wrong: the command simply made no CUDA call.
  if (files.ok() && files->empty() && problems.empty()) {
    if (options.report) {
      std::cout << "syncscope: no CUDA calls were recorded (the command never used the CUDA runtime)\n";
    }
    return code;
  }
  // Nothing asked for (--no-report, no file, no gate): no analysis, only
  // where the traces are and what went wrong while recording.
  if (report.formats.empty() && !report.analysis.policy.gate.enabled()) {
    for (const RecordingProblem& p : problems) spdlog::warn("{}", problem_message(p));
    return code;
  }
  // The gate is judged even with --no-report: the exit status still tells CI.
  report.command_status = code;
  ReportOutcome outcome = report_directory(dir, report, std::move(problems));
  if (code != 0) return code;  // the command's own failure wins
  if (outcome.gate_blind || outcome.gate_failed) return report_exit_status(outcome, report);
  return outcome.error != 0 ? 1 : 0;
}

namespace {

// Bounds of --flush-ms and --ring-events.
constexpr int kMinFlushMs = 1, kMaxFlushMs = 60000;
constexpr int kMinRingEvents = 64, kMaxRingEvents = 1 << 24;

// `run`'s options as typed; its callback makes RunOptions of them.
struct RunArgs {
  RunOptions run;
  ReportArgs report;
  unsigned flush_ms = 0, ring_events = 0;  // 0: the recorder's default
  std::string gpu_timeline;                // --gpu-timeline's value ("" when not given)
  std::string max_trace_size;              // --max-trace-size's value ("" when not given)
  std::string detail;                      // --detail
  bool no_report = false, no_stacks = false;
};

// `remaining`: the command when it follows the options without "--";
// `after_dashes`: the command after "--". One or the other.
int run_from_args(RunArgs& args, const std::vector<std::string>& remaining,
                  const std::vector<std::string>& after_dashes) {
  RunOptions& run = args.run;
  if (!resolve_report_args(args.report, &run.report_settings)) return kUsageExitCode;
  run.command = remaining;
  if (!run.command.empty() && !after_dashes.empty()) {
    spdlog::error("unexpected arguments before --: {}", run.command.front());
    return kUsageExitCode;
  }
  if (run.command.empty()) run.command = after_dashes;
  run.report = !args.no_report;
  run.stacks = !args.no_stacks;
  if (args.flush_ms) run.flush_ms = args.flush_ms;
  if (args.ring_events) run.ring_events = args.ring_events;
  run.detail = args.detail;
  if (!args.max_trace_size.empty()) {
    std::optional<uint64_t> bytes = parse_byte_size(args.max_trace_size);
    if (!bytes || *bytes < (uint64_t{1} << 20) || *bytes > (uint64_t{1} << 50)) {
      spdlog::error("--max-trace-size {}: give a size from 1M to 1024T (e.g. 500M, 2G)", args.max_trace_size);
      return kUsageExitCode;
    }
    run.max_trace_mib = static_cast<unsigned>((*bytes + (1u << 20) - 1) >> 20);
  }
  if (!resolve_gpu_timeline_flag(args.gpu_timeline, &run.gpu_timeline, &run.gpu_sampling)) return kUsageExitCode;
  return run_command(run);
}

}  // namespace

void add_run_command(CLI::App& app, SubcommandContext& context) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Run a command with the recorder injected, then report");
  cmd->add_option("-o,--output", args->run.output_dir, "Trace directory (default ./syncscope-<timestamp>)");
  cmd->add_flag("--force", args->run.force, "Replace traces already in the output directory");
  cmd->add_flag("--no-report", args->no_report,
                "Record only; print no report (files from --format F=FILE are written)");
  cmd->add_flag("--no-stacks", args->no_stacks, "Do not capture native stacks");
  add_gpu_timeline_flag(cmd, &args->gpu_timeline, "(first burst 2s in)");
  cmd->add_flag("--dormant", args->run.dormant,
                "Install the hooks but record nothing until `syncscope attach PID` (cost: one load per CUDA call)");
  cmd->add_option("--flush-ms", args->flush_ms, "Collector flush interval in ms (default 50)")
      ->check(CLI::Range(kMinFlushMs, kMaxFlushMs));
  cmd->add_option("--ring-events", args->ring_events, "Events per thread ring (default 16384)")
      ->check(CLI::Range(kMinRingEvents, kMaxRingEvents));
  cmd->add_option("--detail", args->detail,
                  "How launches are written: aggregated (default: runs of repeated launch sequences, a small "
                  "fraction of the size) or full (every launch an event, as with the GPU timeline)")
      ->check(CLI::IsMember({"full", "aggregated"}));
  cmd->add_option("--max-trace-size", args->max_trace_size,
                  "Stop writing events once a process's trace is this large (e.g. 2G); later events are counted "
                  "and the report says when the limit was reached");
  add_report_options(cmd, &args->run.report_settings, &args->report);
  // Everything from the first positional argument (or after --) is the
  // command, its own options included: `syncscope run -- python train.py --lr 0.1`.
  cmd->prefix_command();
  cmd->footer("COMMAND [ARGS...] follows the options, best after --");
  context.take_program_after_dashes.insert(cmd->get_name());
  cmd->callback([args, cmd, &context] {
    context.exit_status = run_from_args(*args, cmd->remaining(), context.program_after_dashes);
  });
}

}  // namespace syncscope
