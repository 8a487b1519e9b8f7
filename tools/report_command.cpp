#include "tools/report_command.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include <CLI/CLI.hpp>

#include "report/report_warnings.h"
#include "tools/report_options.h"
#include "trace/format.h"
#include "detectors/windowed_analysis.h"
#include "trace/reader.h"
#include "trace/trace_stream.h"
#include "trace/recording_status.h"
#include "trace/time_window.h"

namespace syncscope {
namespace {

// Past these, `report` says on standard error what it is doing: reading a
// long trace and analysing it take seconds to minutes.
constexpr uintmax_t kProgressBytes = 256u << 20;
constexpr size_t kProgressEvents = 20000000;

// Traces of more calls than this are read folded (trace/reader.h,
// ReadOptions): launch by launch they would take about 90 bytes a call,
// 0.7 GB here. SYNCSCOPE_FOLD_ABOVE_CALLS sets it (0: fold every trace).
constexpr uint64_t kFoldAboveCalls = 8000000;

// A count from the environment; `fallback` when unset, and, with a warning
// naming the variable, when not a count (abc, -5, 0 where 0 means nothing).
uint64_t env_count(const char* name, uint64_t fallback, bool zero_allowed) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == 0) return fallback;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(value, &end, 10);
  // strtoull takes "-5" as a huge count: a count is digits only.
  const bool digits = std::all_of(value, value + std::strlen(value), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || errno != 0 || end == nullptr || *end != 0 || (n == 0 && !zero_allowed)) {
    spdlog::warn("{}={}: not a {}count, ignored (using {})", name, value, zero_allowed ? "" : "positive ", fallback);
    return fallback;
  }
  return n;
}

uint64_t fold_above_calls() { return env_count("SYNCSCOPE_FOLD_ABOVE_CALLS", kFoldAboveCalls, true); }

// A trace whose events (read folded) number more than this is read and
// analysed in windows of this many (trace/trace_stream.h,
// detectors/windowed_analysis.h): about 100 bytes of memory an event while
// a window is analysed (and one held back), so ~0.33 GB whatever the trace's length.
// SYNCSCOPE_WINDOW_EVENTS sets it, never below kMinWindowEvents: a window
// must hold many steps of the loop, or the steps found in it change (1,000
// events a window found "16931 steps of 4 calls" where the whole trace has
// 299 of 412).
constexpr uint64_t kWindowEvents = 1000000;
constexpr uint64_t kMinWindowEvents = 100000;

uint64_t window_events() {
  const uint64_t asked = env_count("SYNCSCOPE_WINDOW_EVENTS", kWindowEvents, false);
  if (asked >= kMinWindowEvents) return asked;
  spdlog::warn("SYNCSCOPE_WINDOW_EVENTS={}: below {}, the fewest a window needs to keep a loop's steps whole; using {}",
               asked, kMinWindowEvents, kMinWindowEvents);
  return kMinWindowEvents;
}

// One trace for the report: read whole, or (too long, no GPU timeline to
// join, no --between stretch) read and analysed window by window.
struct ReadTrace {
  ProcessTrace trace;
  std::shared_ptr<const StreamedAnalysis> streamed;
};

// `held_events`: events of the traces read whole so far, which the report
// keeps until it is made: past kHeldWindows windows' worth (a directory of
// many ranks), further traces are analysed as they are read, in windows.
constexpr uint64_t kHeldWindows = 4;

absl::StatusOr<ReadTrace> read_for_report(const std::string& file, const ReportSettings& settings, bool long_read,
                                          uint64_t held_events) {
  // Long traces folded: runs of aggregated launches stay runs, so memory
  // and time follow the trace's runs and other calls, not its launches.
  const ReadOptions options{.fold_launch_runs = true, .fold_above_calls = fold_above_calls()};
  ReadTrace out;
  absl::StatusOr<std::unique_ptr<TraceStream>> stream = TraceStream::open(file, options);
  if (!stream.ok()) return stream.status();
  const uint64_t per_window = window_events();
  const uint64_t events = (*stream)->counted_events();
  const bool too_long = events > per_window || held_events + events > kHeldWindows * per_window;
  if (settings.window && too_long && !(*stream)->has_gpu_work()) {
    // --between on a long trace: only the stretch's events are kept.
    TraceStream& s = **stream;
    std::vector<Event> window, kept;
    while (s.next(per_window, &window)) {
      for (const Event& e : window) {
        if (e.start_ns >= settings.window->first && e.start_ns <= settings.window->second) kept.push_back(e);
      }
    }
    std::stable_sort(kept.begin(), kept.end(), starts_before);
    out.trace = std::move(s.tables());
    out.trace.events = std::move(kept);
    restrict_to_window(out.trace, settings.window->first, settings.window->second);
    return out;
  }
  if (!too_long || (*stream)->has_gpu_work() || settings.window) {
    out.trace = (*stream)->read_whole();
    if (settings.window) restrict_to_window(out.trace, settings.window->first, settings.window->second);
    return out;
  }
  TraceStream& s = **stream;
  WindowedAnalysis windows(settings.analysis.steps);
  std::vector<Event> window;
  Event first{}, last{};
  bool any = false;
  // One window is held back until the next is read: a short last one (the
  // run's end, an evaluation after training) is analysed with it, so that
  // it is not a trace of its own without the training's steps.
  std::vector<Event> held;
  bool holding = false;
  auto analyse = [&](std::vector<Event> events, bool final_window) {
    windows.add(s.tables(), std::move(events), final_window);
    if (long_read) spdlog::info("analysed window {} ({} events carried over)", windows.windows(), windows.carried());
  };
  while (s.next(per_window, &window)) {
    if (!any) first = window.front();
    for (const Event& e : window) {
      if (!any || e.end_ns > last.end_ns) last = e;
      any = true;
    }
    if (holding && s.done() && window.size() < per_window / 2) {
      held.insert(held.end(), window.begin(), window.end());
      analyse(std::move(held), /*final_window=*/true);
      holding = false;
      continue;
    }
    if (holding) analyse(std::move(held), /*final_window=*/false);
    held = std::move(window);
    window.clear();
    holding = true;
    if (s.done()) {
      analyse(std::move(held), /*final_window=*/true);
      holding = false;
    }
  }
  if (holding) analyse(std::move(held), /*final_window=*/true);  // the file's last events came out early
  out.trace = std::move(s.tables());
  out.trace.events.clear();
  if (any) out.trace.events = {first, last};
  out.trace.read_in_windows = windows.windows();
  auto streamed = std::make_shared<StreamedAnalysis>();
  streamed->analysis = windows.analysis();
  streamed->summary = windows.summary(out.trace.events_dropped);
  out.streamed = std::move(streamed);
  return out;
}

size_t count_lines(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

// On standard error as well: with --no-report, or a report only in files,
// this is where a person sees that the recording is incomplete.
void log_problems(const Report& report) {
  if (report.recording.complete()) return;
  auto level = report.policy.gate.enabled() ? spdlog::level::err : spdlog::level::warn;
  spdlog::log(level, "the recording is incomplete ({} problem(s)); the report misses what could not be recorded:",
              report.recording.problems.size());
  for (const RecordingProblem& p : report.recording.problems) spdlog::log(level, "  {}", problem_message(p));
}

}  // namespace

ReportOutcome report_directory(const std::string& dir, const ReportSettings& settings,
                               std::vector<RecordingProblem> problems) {
  return report_directories({dir}, settings, std::move(problems));
}

ReportOutcome report_directories(const std::vector<std::string>& dirs, const ReportSettings& settings,
                                 std::vector<RecordingProblem> problems) {
  ReportOutcome outcome;
  // With problems to tell, a directory without traces (or gone) is a report
  // saying so, not an error.
  const bool must_report = !problems.empty();
  std::vector<std::string> files;
  size_t without_cuda = 0;
  for (const std::string& dir : dirs) {
    // One trace file (syncscope.watch() reports its own process's) or a directory.
    std::error_code file_error;
    const bool one_file = std::filesystem::is_regular_file(dir, file_error);
    auto listed = one_file ? absl::StatusOr<std::vector<std::string>>(std::vector<std::string>{dir})
                           : list_trace_files(dir);
    if (!listed.ok() && !must_report) {
      spdlog::error("{}", std::string(listed.status().message()));
      outcome.error = 2;
      return outcome;
    }
    if (listed.ok() && listed->empty() && !must_report) {
      spdlog::error("no syncscope traces (*.sstrace) in {}", dir);
      outcome.error = 2;
      return outcome;
    }
    if (listed.ok()) files.insert(files.end(), listed->begin(), listed->end());
    if (!one_file) without_cuda += count_lines(dir + "/" + kProcessesWithoutCudaFile);
  }
  std::vector<ProcessTrace> traces;
  std::vector<std::shared_ptr<const StreamedAnalysis>> streamed;
  uint64_t held_events = 0;  // of the traces read whole, kept until the report is made
  std::vector<std::string> unreadable;
  for (const std::string& file : files) {
    // Progress for the long ones (a day-long job's trace): what is read, then how many calls.
    std::error_code size_error;
    const uintmax_t bytes = std::filesystem::file_size(file, size_error);
    const bool long_read = !size_error && bytes >= kProgressBytes;
    const auto began = std::chrono::steady_clock::now();
    if (long_read) spdlog::info("reading {} ({:.0f} MB)...", file, static_cast<double>(bytes) / 1e6);
    absl::StatusOr<ReadTrace> read = read_for_report(file, settings, long_read, held_events);
    if (!read.ok()) {
      unreadable.emplace_back(read.status().message());
      continue;
    }
    if (long_read) {
      spdlog::info("read {} calls in {:.1f} s{}",
                   read->streamed ? read->streamed->summary.events : read->trace.calls(),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(),
                   read->streamed ? ", analysed window by window" : "");
    }
    if (!read->streamed) held_events += read->trace.events.size();
    traces.push_back(std::move(read->trace));
    streamed.push_back(std::move(read->streamed));
  }
  if (traces.empty() && !must_report) {
    for (const std::string& why : unreadable) spdlog::error("skipping {}", why);
    spdlog::error("none of the {} trace file(s) in {} could be read", files.size(),
                  dirs.size() == 1 ? dirs.front() : std::to_string(dirs.size()) + " directories");
    outcome.error = 1;
    return outcome;
  }
  // Unseen processes: the report lists them like any other gap.
  for (const std::string& why : unreadable) add_problem(&problems, {0, kStatusTraceUnreadable, why});
  return report_traces(traces, without_cuda, std::move(problems), settings, streamed);
}

ReportOutcome report_traces(const std::vector<ProcessTrace>& traces, size_t without_cuda,
                            std::vector<RecordingProblem> problems, const ReportSettings& settings,
                            const std::vector<std::shared_ptr<const StreamedAnalysis>>& streamed) {
  ReportOutcome outcome;
  // What the report notices while it is made (a module rebuilt since it was
  // recorded) goes where the command's other messages go.
  set_report_warning_sink(+[](const std::string& message) { spdlog::warn("{}", message); });
  size_t events = 0;
  for (size_t t = 0; t < traces.size(); ++t) {
    if (t < streamed.size() && streamed[t]) continue;  // analysed already, as it was read
    events += traces[t].calls();
  }
  const auto began = std::chrono::steady_clock::now();
  if (events >= kProgressEvents) spdlog::info("analysing {} calls of {} process(es)...", events, traces.size());
  Report report = build_report(traces, settings.analysis, streamed);
  if (events >= kProgressEvents) {
    spdlog::info("analysed in {:.1f} s",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  }
  report.without_cuda += without_cuda;
  for (RecordingProblem& p : problems) add_problem(&report.recording.problems, std::move(p));
  outcome.gate_failed = report.gate_failed;
  outcome.gate_blind = report.gate_blind();
  log_problems(report);
  if (!write_outputs(report, settings.formats, settings.display)) outcome.error = 1;
  // The status said is the one syncscope exits with: a failing command's own wins.
  const std::string status =
      settings.command_status != 0
          ? "exit status " + std::to_string(settings.command_status) + ", the command's own"
          : "exit status " + std::to_string(report.gate_blind() ? kIncompleteRecordingExitCode
                                                                : settings.analysis.policy.gate.exit_code);
  if (report.gate_blind()) {
    spdlog::error("gate failed: the recording is incomplete{} ({})",
                  report.gate_failed ? ", and findings are over budget" : "", status);
  } else if (report.gate_failed) {
    spdlog::error("gate failed: findings over budget ({})", status);
  }
  return outcome;
}

int report_exit_status(const ReportOutcome& outcome, const ReportSettings& settings) {
  // Blind before failed: the findings' verdict was reached on partial data.
  if (outcome.gate_blind) return kIncompleteRecordingExitCode;
  if (outcome.gate_failed) return settings.analysis.policy.gate.exit_code;
  return outcome.error;
}

namespace {

// `report`'s options as typed.
struct ReportCommandArgs {
  std::vector<std::string> dirs;
  std::string between;  // --between START_NS,END_NS
  ReportSettings settings;
  ReportArgs report;
};

// "START,END": two decimal nanosecond counts, START <= END.
std::optional<std::pair<uint64_t, uint64_t>> parse_window(const std::string& text) {
  const size_t comma = text.find(',');
  if (comma == std::string::npos) return std::nullopt;
  uint64_t start = 0, end = 0;
  const char* first = text.data();
  const char* middle = first + comma;
  const char* last = first + text.size();
  auto a = std::from_chars(first, middle, start);
  auto b = std::from_chars(middle + 1, last, end);
  if (a.ec != std::errc() || a.ptr != middle || b.ec != std::errc() || b.ptr != last || comma == 0 || start > end) {
    return std::nullopt;
  }
  return std::make_pair(start, end);
}

int report_from_args(ReportCommandArgs& args) {
  if (!resolve_report_args(args.report, &args.settings)) return kUsageExitCode;
  if (!args.between.empty()) {
    args.settings.window = parse_window(args.between);
    if (!args.settings.window) {
      spdlog::error("--between takes START_NS,END_NS (CLOCK_MONOTONIC nanoseconds, START <= END), not {}",
                    args.between);
      return kUsageExitCode;
    }
  }
  ReportOutcome outcome = report_directories(args.dirs, args.settings);
  return report_exit_status(outcome, args.settings);
}

}  // namespace

void add_report_command(CLI::App& app, SubcommandContext& context) {
  auto args = std::make_shared<ReportCommandArgs>();
  CLI::App* cmd = app.add_subcommand("report", "Print the report of a recorded trace directory");
  cmd->add_option("dirs", args->dirs,
                  "Trace directories or trace files: several make one report (one directory per node of a "
                  "multi-node job; every rank, the cross-rank table and the gate over all of them)")
      ->required();
  add_report_options(cmd, &args->settings, &args->report);
  cmd->add_option("--between", args->between,
                  "Report only what began between START_NS and END_NS (CLOCK_MONOTONIC nanoseconds, the trace "
                  "clock): one block of a recording, as syncscope.watch() does");
  cmd->callback([args, &context] { context.exit_status = report_from_args(*args); });
}

}  // namespace syncscope
