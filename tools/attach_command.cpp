#include "tools/attach_command.h"

#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <memory>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "inject/ptrace_inject.h"
#include "tools/control_client.h"
#include "tools/gpu_sampling.h"
#include "tools/duration.h"
#include "tools/output_dir.h"
#include "tools/preload_locator.h"
#include "tools/process_facts.h"
#include "tools/report_options.h"
#include "trace/control_protocol.h"
#include "trace/environment.h"
#include "trace/reader.h"
#include "trace/recording_status.h"
#include "report/recording_problem.h"

namespace syncscope {
namespace {

struct Target {
  ProcessFacts facts;
  ControlConnection connection;
  bool injected = false;
  bool recording = false;
  bool exited = false;
  double cpu_at_start_s = 0;  // the process's CPU time when its session started
  std::chrono::steady_clock::time_point started;
  bool empty = false;         // its session stopped having recorded nothing
  std::string empty_detail;
};

// CPU time the process has used (user + system), in seconds; 0 if unknown.
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int index = 3; fields >> field; ++index) {  // field 3 is the state
    if (index == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (index == 15) {
      stime = std::strtoull(field.c_str(), nullptr, 10);
      break;
    }
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string describe(const ProcessFacts& facts) {
  std::string command = facts.command_line.empty() ? facts.exe : facts.command_line;
  if (command.size() > 80) command = command.substr(0, 77) + "...";
  return std::to_string(facts.pid) + " (" + command + ")";
}

// The process's control endpoint; when it has none, the recorder is
// injected first (unless --no-inject) and its endpoint awaited.
absl::StatusOr<ControlConnection> reach(const ProcessFacts& facts, const AttachOptions& options,
                                        const std::string& preload, bool* injected) {
  auto connection = ControlConnection::connect(facts.pid, facts.uid);
  if (connection.ok() || !absl::IsNotFound(connection.status())) return connection;
  if (facts.recorder_loaded) {
    return absl::FailedPreconditionError(
        "process " + describe(facts) +
        " already has the recorder but no control endpoint: it was started with `syncscope run` without "
        "--dormant, so it is being recorded already (its report comes when it exits), or it loaded the recorder "
        "itself for syncscope.watch(), which records its blocks in-process");
  }
  if (!options.inject) {
    return absl::FailedPreconditionError("process " + describe(facts) +
                                         " was not started with `syncscope run --dormant`, and --no-inject forbids "
                                         "loading the recorder into it");
  }
  auto handle = inject::inject_library(facts.pid, preload, options.inject_timeout_ms);
  if (!handle.ok()) return handle.status();
  *injected = true;
  // The recorder's constructor has started the control thread; it binds
  // the socket within moments.
  for (int attempt = 0; attempt < 150; ++attempt) {
    connection = ControlConnection::connect(facts.pid, facts.uid);
    if (connection.ok() || absl::IsPermissionDenied(connection.status())) return connection;
    usleep(20000);
  }
  return absl::UnavailableError("the recorder is loaded into process " + describe(facts) +
                                " but its control endpoint did not come up (see that process's stderr)");
}

// Root attaching to another user's process: the recorder in it writes the
// traces as that user, so the directory root just made (empty, root's) is
// handed to that user; one of root's own or another user's is refused
// before anything is injected. One user's processes per attach.
absl::Status hand_directory_to(const std::string& dir, const ProcessFacts& facts, std::optional<uid_t>* handed) {
  if (geteuid() != 0 || facts.uid == 0) return absl::OkStatus();
  if (handed->has_value()) {
    if (**handed == facts.uid) return absl::OkStatus();
    return absl::FailedPreconditionError("process " + describe(facts) + " belongs to uid " +
                                         std::to_string(facts.uid) + ", and " + dir + " was handed to uid " +
                                         std::to_string(**handed) + ": attach one user's processes at a time");
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return absl::FailedPreconditionError("cannot stat " + dir);
  if (st.st_uid == facts.uid) {
    *handed = facts.uid;
    return absl::OkStatus();
  }
  std::error_code ec;
  if (st.st_uid != 0 || !std::filesystem::is_empty(dir, ec)) {
    return absl::FailedPreconditionError("process " + describe(facts) + " runs as uid " + std::to_string(facts.uid) +
                                         " and writes its trace as that user; " + dir +
                                         " is not its: name a new -o DIR (root hands it over)");
  }
  if (chown(dir.c_str(), facts.uid, facts.gid) != 0) {
    return absl::FailedPreconditionError("cannot hand " + dir + " to uid " + std::to_string(facts.uid) + ": " +
                                         std::strerror(errno));
  }
  *handed = facts.uid;
  return absl::OkStatus();
}

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  return set;
}

// Ctrl-C (SIGINT, SIGTERM, SIGHUP) must never kill syncscope while it holds
// a process under ptrace or leaves a session half done: from the first
// injection to the last detach they are blocked, and taken (sigtimedwait)
// only as "stop recording now".
class StopSignalsDeferred {
 public:
  StopSignalsDeferred() {
    sigset_t set = stop_signals();
    sigprocmask(SIG_BLOCK, &set, &previous_);
  }
  ~StopSignalsDeferred() { sigprocmask(SIG_SETMASK, &previous_, nullptr); }

 private:
  sigset_t previous_;
};

// Until the duration ends, a stop signal, or every target exits.
void wait_for_end(std::vector<Target>& targets, const std::optional<long long>& duration_ms) {
  const sigset_t signals = stop_signals();
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    timespec tick{0, 100 * 1000 * 1000};
    int sig = sigtimedwait(&signals, nullptr, &tick);
    if (sig > 0) {
      spdlog::info("{}: stopping the recording", strsignal(sig));
      break;
    }
    auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    if (duration_ms && elapsed >= *duration_ms) break;
    bool any_running = false;
    for (Target& t : targets) {
      if (t.recording && !t.exited && t.connection.peer_closed()) {
        t.exited = true;
        spdlog::info("process {} exited during the recording; its trace is kept", describe(t.facts));
      }
      any_running = any_running || (t.recording && !t.exited);
    }
    if (!any_running) break;
  }
}

void stop(Target& t) {
  if (!t.recording || t.exited) return;
  control::Request stop_request;
  stop_request.command = control::Command::kStop;
  auto reply = t.connection.request(stop_request, 15000);
  if (!reply.ok()) {
    spdlog::warn("process {}: {}", describe(t.facts), std::string(reply.status().message()));
    return;
  }
  control::StopReply stopped;
  if (!control::decode(*reply, &stopped)) {
    spdlog::warn("process {}: stopped, but its reply lacks the counts: {}", describe(t.facts), control::encode(*reply));
    return;
  }
  if (stopped.events == 0) {
    char detail[160];
    std::snprintf(detail, sizeof(detail), "%.1f s attached, %.1f s of CPU used meanwhile",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t.started).count(),
                  cpu_seconds(t.facts.pid) - t.cpu_at_start_s);
    t.empty = true;
    t.empty_detail = detail;
  }
  if (t.injected) {
    spdlog::info("process {}: {} events; {} import slot(s) put back", describe(t.facts), stopped.events,
                 stopped.restored);
    if (stopped.left != 0) {
      spdlog::warn("process {}: {} import slot(s) had been changed by someone else meanwhile and were left as found",
                   describe(t.facts), stopped.left);
    }
  } else {
    spdlog::info("process {}: {} events", describe(t.facts), stopped.events);
  }
}

std::vector<pid_t> select_pids(const AttachOptions& options) {
  std::vector<pid_t> pids = options.pids;
  if (!options.pattern.empty()) {
    for (pid_t pid : find_processes(options.pattern)) pids.push_back(pid);
  }
  return pids;
}

}  // namespace

int attach_command(const AttachOptions& options) {
  std::vector<pid_t> pids = select_pids(options);
  if (pids.empty()) {
    if (!options.pattern.empty()) {
      spdlog::error("no process's command line contains '{}'", options.pattern);
    } else {
      spdlog::error("nothing to attach to: syncscope attach PID... or syncscope attach --all PATTERN");
    }
    return 2;
  }
  std::vector<std::string> tried;
  std::string preload = locate_preload(&tried);
  if (preload.empty() && options.inject) {
    spdlog::error("cannot find libsyncscope.so (set {} to its path)", env::kPreload);
    return 2;
  }
  std::string dir = options.output_dir.empty() ? default_output_dir("syncscope-attach") : options.output_dir;
  if (prepare_output_dir(dir, options.force) != OutputDirState::kReady) return 2;
  dir = std::filesystem::absolute(dir).lexically_normal().string();

  std::vector<Target> targets;
  int refused = 0, skipped = 0;
  std::optional<uid_t> directory_owner;  // root: the user the directory was handed to
  std::optional<StopSignalsDeferred> deferred(std::in_place);
  for (pid_t pid : pids) {
    auto facts = inspect_process(pid);
    absl::Status ok = facts.ok() ? check_attachable(*facts) : facts.status();
    if (!ok.ok()) {
      // With --all, processes that merely match the pattern (a shell, the
      // launcher) are skipped quietly; a PID named outright is an error.
      bool named = std::find(options.pids.begin(), options.pids.end(), pid) != options.pids.end();
      if (named) {
        spdlog::error("{}", std::string(ok.message()));
        ++refused;
      } else {
        spdlog::debug("skipped: {}", std::string(ok.message()));
        ++skipped;
      }
      continue;
    }
    if (absl::Status handed = hand_directory_to(dir, *facts, &directory_owner); !handed.ok()) {
      spdlog::error("{}", std::string(handed.message()));
      ++refused;
      continue;
    }
    Target target;
    target.facts = *facts;
    auto connection = reach(target.facts, options, preload, &target.injected);
    if (!connection.ok()) {
      spdlog::error("{}", std::string(connection.status().message()));
      ++refused;
      continue;
    }
    // Before anything else: a recorder of another syncscope version would
    // misread the rest.
    auto hello = connection->hello(5000);
    if (!hello.ok()) {
      spdlog::error("{}", std::string(hello.status().message()));
      ++refused;
      continue;
    }
    spdlog::debug("process {}: recorder of syncscope {}, {}", describe(target.facts), hello->version, hello->mode);
    target.connection = std::move(*connection);
    targets.push_back(std::move(target));
  }
  if (skipped > 0) {
    spdlog::info("{} other process(es) matching '{}' skipped (not CUDA, or not yours)", skipped, options.pattern);
  }
  if (targets.empty()) {
    deferred.reset();
    if (refused == 0) spdlog::error("no CUDA process's command line contains '{}'", options.pattern);
    return 2;
  }
  // Start every session before waiting, so they cover the same stretch.
  int recording = 0;
  for (Target& t : targets) {
    auto reply = t.connection.request(control::Request{control::Command::kStart, dir, options.gpu_timeline, options.gpu_sampling}, 15000);
    if (!reply.ok()) {
      spdlog::error("process {}: cannot start recording: {}", describe(t.facts), std::string(reply.status().message()));
      continue;
    }
    t.recording = true;
    t.started = std::chrono::steady_clock::now();
    t.cpu_at_start_s = cpu_seconds(t.facts.pid);
    ++recording;
    spdlog::info("recording process {}{}", describe(t.facts), t.injected ? " (recorder injected)" : "");
    control::StartReply started;
    if (control::decode(*reply, &started)) {
      spdlog::debug("process {}: trace {}, {} import slot(s) redirected", describe(t.facts), started.trace,
                    started.redirected);
    }
  }
  if (recording == 0) return 2;
  if (options.duration_ms) {
    spdlog::info("recording {} process(es) for {:.1f} s (Ctrl-C stops sooner)", recording,
                 *options.duration_ms / 1000.0);
  } else {
    spdlog::info("recording {} process(es) until Ctrl-C", recording);
  }
  wait_for_end(targets, options.duration_ms);
  for (Target& t : targets) stop(t);
  for (Target& t : targets) t.connection = ControlConnection();  // detach: close every endpoint connection
  deferred.reset();  // every process is left as it was: Ctrl-C may stop the report now

  spdlog::info("traces in {}", dir);
  ReportSettings report = options.report_settings;
  report.formats.clear();
  for (const OutputFormat& f : options.report_settings.formats) {
    if (options.report || !f.file.empty()) report.formats.push_back(f);
  }
  // A session that saw nothing cannot vouch for anything: a recording
  // problem (a gate fails closed, exit 4), never a clean report.
  std::vector<RecordingProblem> problems;
  for (const Target& t : targets) {
    if (t.empty) problems.push_back(RecordingProblem{static_cast<uint32_t>(t.facts.pid), kStatusSessionEmpty, t.empty_detail});
  }
  ReportOutcome outcome = report_directory(dir, report, std::move(problems));
  if (outcome.gate_blind || outcome.gate_failed) return report_exit_status(outcome, report);
  if (outcome.error != 0 || refused > 0) return 1;
  return 0;
}

namespace {

// Bounds of --inject-timeout, in seconds.
constexpr double kMinInjectTimeoutS = 0.1, kMaxInjectTimeoutS = 600.0;

// `attach`'s options as typed; its callback makes AttachOptions of them.
struct AttachArgs {
  AttachOptions attach;
  ReportArgs report;
  std::string duration;
  bool no_report = false, no_inject = false;
  double inject_timeout_s = 10;  // AttachOptions::inject_timeout_ms's default
  std::string gpu_timeline;       // --gpu-timeline's value ("" when not given)
};

int attach_from_args(AttachArgs& args) {
  AttachOptions& attach = args.attach;
  if (!resolve_report_args(args.report, &attach.report_settings)) return kUsageExitCode;
  if (!resolve_gpu_timeline_flag(args.gpu_timeline, &attach.gpu_timeline, &attach.gpu_sampling)) {
    return kUsageExitCode;
  }
  if (!args.duration.empty()) {
    attach.duration_ms = parse_duration_ms(args.duration);
    if (!attach.duration_ms) {
      spdlog::error("--duration: '{}' is not a duration (30s, 500ms, 2m, 1h)", args.duration);
      return kUsageExitCode;
    }
  }
  if (attach.pids.empty() && attach.pattern.empty()) {
    spdlog::error("attach to what? syncscope attach PID... or syncscope attach --all PATTERN");
    return kUsageExitCode;
  }
  attach.inject = !args.no_inject;
  attach.inject_timeout_ms = static_cast<int>(args.inject_timeout_s * 1000);
  attach.report = !args.no_report;
  return attach_command(attach);
}

}  // namespace

void add_attach_command(CLI::App& app, SubcommandContext& context) {
  auto args = std::make_shared<AttachArgs>();
  CLI::App* cmd =
      app.add_subcommand("attach", "Record running processes for a while, then report; they carry on untouched");
  cmd->add_option("pid", args->attach.pids, "Process ids to attach to");
  cmd->add_option("--all", args->attach.pattern,
                  "Attach to every CUDA process whose command line contains PATTERN (like pgrep -f)");
  cmd->add_option("-d,--duration", args->duration, "How long to record: 30s, 500ms, 2m (default: until Ctrl-C)");
  cmd->add_option("-o,--output", args->attach.output_dir, "Trace directory (default ./syncscope-attach-<timestamp>)");
  cmd->add_flag("--force", args->attach.force, "Replace traces already in the output directory");
  cmd->add_flag("--no-inject", args->no_inject,
                "Only attach to processes started with `syncscope run --dormant`; never use ptrace");
  cmd->add_option("--inject-timeout", args->inject_timeout_s, "Seconds the injected dlopen may take (default 10)")
      ->check(CLI::Range(kMinInjectTimeoutS, kMaxInjectTimeoutS));
  cmd->add_flag("--no-report", args->no_report, "Record only; print no report");
  add_gpu_timeline_flag(cmd, &args->gpu_timeline, "while attached (first burst at once)");
  add_report_options(cmd, &args->attach.report_settings, &args->report);
  cmd->callback([args, &context] { context.exit_status = attach_from_args(*args); });
}

}  // namespace syncscope
