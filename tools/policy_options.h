// The CI options shared by `run` and `report`: --fail-on, --budget,
// --fail-on-saving, --include-warmup, --error-exitcode, --suppressions, --baseline. They are
// resolved (files read, names checked) before anything runs, so a typo in
// a suppressions file fails in a second, not after an hour of training.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "detectors/finding.h"
#include "report/report_model.h"

namespace syncscope {

inline constexpr const char* kDefaultSuppressionsFile = ".syncscope-suppressions";

struct PolicyArgs {
  std::vector<std::string> fail_on;  // each a comma list
  std::vector<std::string> budgets;  // CATEGORY=N[/step]
  std::string fail_on_saving;        // P% ("" when not given)
  bool include_warmup = false;
  int error_exitcode = kDefaultGateExitCode;
  std::vector<std::string> suppressions;  // files; none: ./.syncscope-suppressions when present
  bool no_default_suppressions = false;
  std::string baseline;
};

// Exit statuses are 0..255: the bound of every --error-exitcode.
inline constexpr int kMaxExitStatus = 255;

// The gate: --fail-on, --budget, --fail-on-saving, --include-warmup, --error-exitcode.
void add_gate_options(CLI::App* app, PolicyArgs* args);
// What the gate does not count: --suppressions, --no-default-suppressions, --baseline.
void add_suppression_options(CLI::App* app, PolicyArgs* args);
// Both groups, listed under "CI gating".
void add_policy_options(CLI::App* app, PolicyArgs* args);

// Adds the categories of each --fail-on list (a comma list or 'all') to
// *categories; an unknown name is an error saying "--fail-on: " and why.
absl::Status add_fail_on_categories(const std::vector<std::string>& lists, std::set<Category>* categories);
// `cwd`: where the default suppressions file is looked for.
absl::StatusOr<ReportPolicy> resolve_policy(const PolicyArgs& args, const std::string& cwd = ".");

}  // namespace syncscope
