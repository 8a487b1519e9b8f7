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

#include "sites/report_warnings.h"
#include "tools/report_options.h"
#include "trace/format.h"
#include "analysis/trace_analysis.h"
#include "trace/reader.h"
#include "trace/recording_status.h"

namespace syncscope {
namespace {

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

// What the analysis is asked (analysis/trace_analysis.h): the options as
// typed, and the environment's sizes.
TraceAnalysisOptions analysis_options(const ReportSettings& settings) {
  TraceAnalysisOptions options;
  options.steps = settings.analysis.steps;
  options.between = settings.between;
  options.code = settings.analysis.code;
  options.window_events = window_events();
  options.fold_above_calls = fold_above_calls();
  options.progress = [](const std::string& message) { spdlog::info("{}", message); };
  return options;
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
  AnalysedTraces analysed = analyze_traces(files, analysis_options(settings));
  std::vector<AnalysedTrace>& traces = analysed.traces;
  const std::vector<std::string>& unreadable = analysed.unreadable;
  if (traces.empty() && !must_report) {
    for (const std::string& why : unreadable) spdlog::error("skipping {}", why);
    spdlog::error("none of the {} trace file(s) in {} could be read", files.size(),
                  dirs.size() == 1 ? dirs.front() : std::to_string(dirs.size()) + " directories");
    outcome.error = 1;
    return outcome;
  }
  // Unseen processes: the report lists them like any other gap.
  for (const std::string& why : unreadable) add_problem(&problems, {0, kStatusTraceUnreadable, why});
  return report_traces(traces, without_cuda, std::move(problems), settings);
}

ReportOutcome report_traces(const std::vector<AnalysedTrace>& traces, size_t without_cuda,
                            std::vector<RecordingProblem> problems, const ReportSettings& settings) {
  ReportOutcome outcome;
  // What the report notices while it is made (a module rebuilt since it was
  // recorded) goes where the command's other messages go.
  set_report_warning_sink(+[](const std::string& message) { spdlog::warn("{}", message); });
  Report report = build_report(traces, settings.analysis);
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
std::optional<std::pair<uint64_t, uint64_t>> parse_stretch(const std::string& text) {
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
    args.settings.between = parse_stretch(args.between);
    if (!args.settings.between) {
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
