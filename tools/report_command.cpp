#include "tools/report_command.h"

#include <spdlog/spdlog.h>

#include <fstream>
#include <memory>

#include <CLI/CLI.hpp>

#include "report/report_warnings.h"
#include "tools/report_options.h"
#include "trace/format.h"
#include "trace/reader.h"
#include "trace/recording_status.h"

namespace syncscope {
namespace {

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
  ReportOutcome outcome;
  // With problems to tell, a directory without traces (or gone) is a report
  // saying so, not an error.
  const bool must_report = !problems.empty();
  auto files = list_trace_files(dir);
  if (!files.ok() && !must_report) {
    spdlog::error("{}", std::string(files.status().message()));
    outcome.error = 2;
    return outcome;
  }
  if (files.ok() && files->empty() && !must_report) {
    spdlog::error("no syncscope traces (*.sstrace) in {}", dir);
    outcome.error = 2;
    return outcome;
  }
  std::vector<ProcessTrace> traces;
  std::vector<std::string> unreadable;
  size_t listed = files.ok() ? files->size() : 0;
  for (size_t i = 0; i < listed; ++i) {
    auto trace = read_trace_file((*files)[i]);
    if (!trace.ok()) {
      unreadable.emplace_back(trace.status().message());
      continue;
    }
    traces.push_back(std::move(*trace));
  }
  if (traces.empty() && !must_report) {
    for (const std::string& why : unreadable) spdlog::error("skipping {}", why);
    spdlog::error("none of the {} trace file(s) in {} could be read", listed, dir);
    outcome.error = 1;
    return outcome;
  }
  // Unseen processes: the report lists them like any other gap.
  for (const std::string& why : unreadable) add_problem(&problems, {0, kStatusTraceUnreadable, why});
  return report_traces(traces, count_lines(dir + "/" + kProcessesWithoutCudaFile), std::move(problems), settings);
}

ReportOutcome report_traces(const std::vector<ProcessTrace>& traces, size_t without_cuda,
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
  if (report.gate_blind()) {
    spdlog::error("gate failed: the recording is incomplete{} (exit status {})",
                  report.gate_failed ? ", and findings are over budget" : "", kIncompleteRecordingExitCode);
  } else if (report.gate_failed) {
    spdlog::error("gate failed: findings over budget (exit status {})", settings.analysis.policy.gate.exit_code);
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
  std::string dir;
  ReportSettings settings;
  ReportArgs report;
};

int report_from_args(ReportCommandArgs& args) {
  if (!resolve_report_args(args.report, &args.settings)) return kUsageExitCode;
  ReportOutcome outcome = report_directory(args.dir, args.settings);
  return report_exit_status(outcome, args.settings);
}

}  // namespace

void add_report_command(CLI::App& app, SubcommandContext& context) {
  auto args = std::make_shared<ReportCommandArgs>();
  CLI::App* cmd = app.add_subcommand("report", "Print the report of a recorded trace directory");
  cmd->add_option("dir", args->dir, "Trace directory")->required();
  add_report_options(cmd, &args->settings, &args->report);
  cmd->callback([args, &context] { context.exit_status = report_from_args(*args); });
}

}  // namespace syncscope
