// `syncscope report DIR`: read the traces a run left and print the report,
// judged under the given policy. Also the last step of `syncscope run`.
#pragma once

#include <string>
#include <vector>

#include "report/report_model.h"
#include "report/text_report.h"
#include "tools/output_formats.h"

namespace syncscope {

struct ReportSettings {
  ReportOptions analysis;
  TextReportOptions display;
  std::vector<OutputFormat> formats = {{"text", ""}};
};

struct ReportOutcome {
  int error = 0;             // 0, or syncscope's own failure: 2 no traces / unreadable dir, 1 unreadable traces or unwritable output
  bool gate_failed = false;  // the policy's gate failed
};

ReportOutcome report_directory(const std::string& dir, const ReportSettings& settings);

// Exit status of `syncscope report`: the error, else the gate's exit code
// when it failed, else 0.
int report_exit_status(const ReportOutcome& outcome, const ReportSettings& settings);

}  // namespace syncscope
