#include "tools/policy_options.h"

#include <sys/stat.h>

#include "policy/category_list.h"
#include "policy/saving_gate.h"

namespace syncscope {

namespace {

constexpr const char* kPolicyGroup = "CI gating";

}  // namespace

void add_gate_options(CLI::App* app, PolicyArgs* args) {
  app->add_option("--fail-on", args->fail_on,
                  "Fail (exit status --error-exitcode) when findings of these categories occur: comma list or 'all'")
      ->group(kPolicyGroup);
  app->add_option("--budget", args->budgets,
                  "Allowed findings per category: CATEGORY=N (in the run) or CATEGORY=N/step; repeatable")
      ->group(kPolicyGroup);
  app->add_option("--fail-on-saving", args->fail_on_saving,
                  "Fail for each finding whose fix is predicted to save more than P% of a step (the low end of a "
                  "range); findings without a prediction are listed as not judged and do not fail")
      ->type_name("P%")
      ->group(kPolicyGroup);
  app->add_flag("--include-warmup", args->include_warmup,
                "Count warm-up and teardown findings too (default: steady state only)")
      ->group(kPolicyGroup);
  app->add_option("--error-exitcode", args->error_exitcode,
                  "Exit status when the gate fails (default 3); the command's own failure wins")
      ->check(CLI::Range(0, kMaxExitStatus))
      ->group(kPolicyGroup);
}

void add_suppression_options(CLI::App* app, PolicyArgs* args) {
  app->add_option("--suppressions", args->suppressions,
                  "File of category:pattern rules; repeatable (default ./.syncscope-suppressions when present)")
      ->group(kPolicyGroup);
  app->add_flag("--no-default-suppressions", args->no_default_suppressions, "Do not read ./.syncscope-suppressions")
      ->group(kPolicyGroup);
  app->add_option("--baseline", args->baseline,
                  "Findings JSON of an earlier run: only findings not in it count against the gate")
      ->group(kPolicyGroup);
}

void add_policy_options(CLI::App* app, PolicyArgs* args) {
  add_gate_options(app, args);
  add_suppression_options(app, args);
}

absl::Status add_fail_on_categories(const std::vector<std::string>& lists, std::set<Category>* categories) {
  for (const std::string& list : lists) {
    auto parsed = parse_category_list(list);
    if (!parsed.ok()) return absl::InvalidArgumentError("--fail-on: " + std::string(parsed.status().message()));
    categories->insert(parsed->begin(), parsed->end());
  }
  return absl::OkStatus();
}

absl::StatusOr<ReportPolicy> resolve_policy(const PolicyArgs& args, const std::string& cwd) {
  ReportPolicy policy;
  if (absl::Status fail_on = add_fail_on_categories(args.fail_on, &policy.gate.fail_on); !fail_on.ok()) return fail_on;
  for (const std::string& spec : args.budgets) {
    auto budgets = parse_budget(spec);
    if (!budgets.ok()) return absl::InvalidArgumentError("--budget: " + std::string(budgets.status().message()));
    policy.gate.budgets.insert(policy.gate.budgets.end(), budgets->begin(), budgets->end());
  }
  if (!args.fail_on_saving.empty()) {
    auto threshold = parse_saving_threshold(args.fail_on_saving);
    if (!threshold.ok()) return absl::InvalidArgumentError("--fail-on-saving: " + std::string(threshold.status().message()));
    policy.gate.fail_on_saving = *threshold;
  }
  policy.gate.include_warmup = args.include_warmup;
  policy.gate.exit_code = args.error_exitcode;
  std::vector<std::string> files = args.suppressions;
  if (files.empty() && !args.no_default_suppressions) {
    std::string default_file = cwd + "/" + kDefaultSuppressionsFile;
    struct stat st;
    if (stat(default_file.c_str(), &st) == 0) files.push_back(cwd == "." ? kDefaultSuppressionsFile : default_file);
  }
  for (const std::string& file : files) {
    auto rules = load_suppressions(file);
    if (!rules.ok()) return rules.status();
    policy.suppressions.insert(policy.suppressions.end(), rules->begin(), rules->end());
  }
  if (!args.baseline.empty()) {
    auto baseline = load_baseline(args.baseline);
    if (!baseline.ok()) return absl::InvalidArgumentError("--baseline: " + std::string(baseline.status().message()));
    policy.baseline = std::move(*baseline);
  }
  return policy;
}

}  // namespace syncscope
