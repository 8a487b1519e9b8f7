// The CI options shared by `run` and `report`: --fail-on, --budget,
// --include-warmup, --error-exitcode, --suppressions, --baseline. They are
// resolved (files read, names checked) before anything runs, so a typo in
// a suppressions file fails in a second, not after an hour of training.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "absl/status/statusor.h"
#include "report/report_model.h"

namespace syncscope {

inline constexpr const char* kDefaultSuppressionsFile = ".syncscope-suppressions";

struct PolicyArgs {
  std::vector<std::string> fail_on;   // each a comma list
  std::vector<std::string> budgets;   // CATEGORY=N[/step]
  bool include_warmup = false;
  int error_exitcode = kDefaultGateExitCode;
  std::vector<std::string> suppressions;  // files; none: ./.syncscope-suppressions when present
  bool no_default_suppressions = false;
  std::string baseline;
};

void add_policy_options(CLI::App* app, PolicyArgs* args);
// `cwd`: where the default suppressions file is looked for.
absl::StatusOr<ReportPolicy> resolve_policy(const PolicyArgs& args, const std::string& cwd = ".");

}  // namespace syncscope
