#include "tools/report_command.h"

#include <spdlog/spdlog.h>

#include <fstream>

#include "trace/format.h"
#include "trace/reader.h"

namespace syncscope {
namespace {

size_t count_lines(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

}  // namespace

ReportOutcome report_directory(const std::string& dir, const ReportSettings& settings) {
  ReportOutcome outcome;
  auto files = list_trace_files(dir);
  if (!files.ok()) {
    spdlog::error("{}", std::string(files.status().message()));
    outcome.error = 2;
    return outcome;
  }
  if (files->empty()) {
    spdlog::error("no syncscope traces (*.sstrace) in {}", dir);
    outcome.error = 2;
    return outcome;
  }
  std::vector<ProcessTrace> traces;
  for (const std::string& file : *files) {
    auto trace = read_trace_file(file);
    if (!trace.ok()) {
      spdlog::error("skipping {}", std::string(trace.status().message()));
      continue;
    }
    traces.push_back(std::move(*trace));
  }
  if (traces.empty()) {
    spdlog::error("none of the {} trace file(s) in {} could be read", files->size(), dir);
    outcome.error = 1;
    return outcome;
  }
  Report report = build_report(traces, settings.analysis);
  report.without_cuda += count_lines(dir + "/" + kProcessesWithoutCudaFile);
  outcome.gate_failed = report.gate_failed;
  if (!write_outputs(report, settings.formats, settings.display)) outcome.error = 1;
  if (report.gate_failed) {
    spdlog::error("gate failed: findings over budget (exit status {})", settings.analysis.policy.gate.exit_code);
  }
  return outcome;
}

int report_exit_status(const ReportOutcome& outcome, const ReportSettings& settings) {
  if (outcome.gate_failed) return settings.analysis.policy.gate.exit_code;
  return outcome.error;
}

}  // namespace syncscope
