// The options that shape a report, the same for `run`, `attach` and
// `report`, each group defined once: what the text shows (--details, --top,
// --full-frames), the outputs (--format), the steps (--warmup,
// --warmup-steps), whose code a file is (--user-code, --library-code), and
// the CI policy (tools/policy_options.h).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "segmentation/steps.h"
#include "report/text_report.h"
#include "tools/policy_options.h"
#include "tools/report_command.h"

namespace syncscope {

// What is kept as typed until resolve_report_args checks it.
struct ReportArgs {
  PolicyArgs policy;
  std::vector<std::string> formats;  // --format specs (tools/output_formats.h)
};

void add_display_options(CLI::App* app, TextReportOptions* display);
void add_format_option(CLI::App* app, std::vector<std::string>* formats);
void add_step_options(CLI::App* app, StepOptions* steps);
// --user-code, --library-code: whose code a Python file is (trace/code_ownership.h).
void add_code_options(CLI::App* app, CodeOwnershipOptions* code);

// Every group above, then the policy's, in the order `--help` lists them.
void add_report_options(CLI::App* app, ReportSettings* settings, ReportArgs* args);

// Formats and policy, checked before anything runs; false after logging why
// (a usage error).
bool resolve_report_args(const ReportArgs& args, ReportSettings* settings);

}  // namespace syncscope
