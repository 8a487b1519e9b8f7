// `syncscope report DIR`: read the traces a run left and print the report,
// judged under the given policy. Also the last step of `syncscope run`.
#pragma once

#include <cstdint>
#include <optional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "report/report_model.h"
#include "report/text_report.h"
#include "tools/output_formats.h"
#include "tools/subcommand.h"

namespace syncscope {

struct ReportSettings {
  ReportOptions analysis;
  TextReportOptions display;
  std::vector<OutputFormat> formats = {{"text", ""}};
  // `report --between START,END`: only what began in this stretch of the
  // trace clock (CLOCK_MONOTONIC ns) is reported (trace/time_window.h).
  std::optional<std::pair<uint64_t, uint64_t>> between;
  // `run`: the command's own exit status, which wins over the gate's (a
  // failing command is never reported as a pass or as a gate's status).
  int command_status = 0;
};

struct ReportOutcome {
  int error =
      0;  // 0, or syncscope's own failure: 2 no traces / unreadable dir, 1 unreadable traces or unwritable output
  bool gate_failed = false;  // the policy's gate failed on the findings
  bool gate_blind = false;   // a gate was set and the recording is incomplete (Report::gate_blind)
};

// `dir` is a directory of traces, or one trace file. `problems`: what the
// launcher learnt about the recording (tools/recorder_status.h). With any, the report is made even when the directory
// holds no trace or is gone: it then says what is missing. The problems are
// logged (errors under a gate, else warnings) and in every format.
ReportOutcome report_directory(const std::string& dir, const ReportSettings& settings,
                               std::vector<RecordingProblem> problems = {});

// The same over several directories or files (one per node of a job): one
// report of every process in them.
ReportOutcome report_directories(const std::vector<std::string>& dirs, const ReportSettings& settings,
                                 std::vector<RecordingProblem> problems = {});

// The report of traces already analysed (report_directory's second half;
// also `run`'s report when nothing could be recorded at all).
ReportOutcome report_traces(const std::vector<AnalysedTrace>& traces, size_t without_cuda,
                            std::vector<RecordingProblem> problems, const ReportSettings& settings);

// The exit status when the command itself succeeded (or for `syncscope
// report`): kIncompleteRecordingExitCode when the gate was blind, else the
// gate's exit code when it failed, else the error, else 0.
int report_exit_status(const ReportOutcome& outcome, const ReportSettings& settings);

// `report` and its options (tools/subcommand.h).
void add_report_command(CLI::App& app, SubcommandContext& context);

}  // namespace syncscope
