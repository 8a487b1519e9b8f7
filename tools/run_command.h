// `syncscope run [options] -- CMD ARGS...`: start CMD with the preload,
// forward signals to it, wait, print the report, return CMD's status.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/text_report.h"
#include "tools/output_formats.h"

namespace syncscope {

struct RunOptions {
  std::string output_dir;  // "" = ./syncscope-<timestamp>
  bool force = false;      // reuse a directory that holds traces (their files are removed)
  bool report = true;
  TextReportOptions report_options;
  std::vector<OutputFormat> formats = {{"text", ""}};
  std::optional<unsigned> flush_ms;
  std::optional<unsigned> ring_events;
  bool stacks = true;
  std::vector<std::string> command;
};

// The child's exit code, 128+signal if a signal ended it, 126/127 if it could
// not be started, 2 for syncscope's own usage errors.
int run_command(const RunOptions& options);

}  // namespace syncscope
