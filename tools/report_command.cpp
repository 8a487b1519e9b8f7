#include "tools/report_command.h"

#include <spdlog/spdlog.h>

#include "trace/reader.h"

namespace syncscope {

int report_directory(const std::string& dir, const TextReportOptions& options,
                     const std::vector<OutputFormat>& formats) {
  auto files = list_trace_files(dir);
  if (!files.ok()) {
    spdlog::error("{}", std::string(files.status().message()));
    return 2;
  }
  if (files->empty()) {
    spdlog::error("no syncscope traces (*.sstrace) in {}", dir);
    return 2;
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
    return 1;
  }
  return write_outputs(traces, formats, options) ? 0 : 1;
}

}  // namespace syncscope
