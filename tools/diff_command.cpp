#include "tools/diff_command.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "policy/category_list.h"
#include "policy/findings_diff.h"
#include "tools/policy_options.h"

namespace syncscope {
namespace {

std::string side_text(const DiffSide& s) {
  char buffer[160];
  if (s.per_step > 0) {
    std::snprintf(buffer, sizeof(buffer), "%.2f per step, %.1f us host blocked per step", s.per_step,
                  s.host_blocked_us_per_step);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%llu calls", static_cast<unsigned long long>(s.count));
  }
  return buffer;
}

nlohmann::json side_json(const DiffSide& s) {
  return {
      {"count", s.count}, {"per_step", s.per_step},         {"host_blocked_us_per_step", s.host_blocked_us_per_step},
      {"line", s.line},   {"api_sequence", s.api_sequence}, {"processes", s.processes}};
}

nlohmann::json entries_json(const std::vector<DiffEntry>& entries, bool base, bool now) {
  nlohmann::json out = nlohmann::json::array();
  for (const DiffEntry& e : entries) {
    nlohmann::json j = {{"category", e.id.category},
                        {"file", e.id.file},
                        {"function", e.id.function},
                        {"source", e.id.source},
                        {"fingerprint", fingerprint(e.id)}};
    if (base) j["base"] = side_json(e.base);
    if (now) j["new"] = side_json(e.now);
    if (!e.change.empty()) j["change"] = e.change;
    out.push_back(j);
  }
  return out;
}

void print_text(const FindingsDiff& diff, const DiffOptions& options) {
  std::cout << "syncscope diff " << options.base << " -> " << options.now << "\n";
  std::cout << "  " << diff.added.size() << " new, " << diff.fixed.size() << " fixed, " << diff.changed.size()
            << " changed, " << diff.unchanged.size() << " unchanged"
            << (options.include_warmup ? " (all phases)" : " (steady state)") << "\n";
  for (const DiffEntry& e : diff.added) {
    std::cout << "  + new      " << e.id.category << " at " << e.now.line << " in " << e.id.function << ": "
              << e.now.api_sequence << ", " << side_text(e.now) << "\n";
    if (!e.id.source.empty()) std::cout << "             | " << e.id.source << "\n";
  }
  for (const DiffEntry& e : diff.fixed) {
    std::cout << "  - fixed    " << e.id.category << " at " << e.base.line << " in " << e.id.function << ": was "
              << side_text(e.base) << "\n";
  }
  for (const DiffEntry& e : diff.changed) {
    std::cout << "  ~ changed  " << e.id.category << " at " << e.now.line << " in " << e.id.function << ": " << e.change
              << "\n";
  }
}

}  // namespace

int diff_command(const DiffOptions& options) {
  auto base = load_findings_document(options.base);
  if (!base.ok()) {
    spdlog::error("{}", std::string(base.status().message()));
    return 2;
  }
  auto now = load_findings_document(options.now);
  if (!now.ok()) {
    spdlog::error("{}", std::string(now.status().message()));
    return 2;
  }
  FindingsDiff diff = diff_findings(*base, *now, options.include_warmup);
  size_t failing = 0;
  for (const DiffEntry& e : diff.added) {
    auto c = parse_category(e.id.category);
    if (options.fail_on.empty() || (c && options.fail_on.count(*c))) ++failing;
  }
  if (options.format == "json") {
    nlohmann::json out = {{"schema", "syncscope/diff/v1"},
                          {"base", options.base},
                          {"new", options.now},
                          {"include_warmup", options.include_warmup},
                          {"added", entries_json(diff.added, false, true)},
                          {"fixed", entries_json(diff.fixed, true, false)},
                          {"changed", entries_json(diff.changed, true, true)},
                          {"unchanged", diff.unchanged.size()},
                          {"failed", failing > 0}};
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    print_text(diff, options);
  }
  if (failing > 0) {
    spdlog::error("{} new finding(s) (exit status {})", failing, options.error_exitcode);
    return options.error_exitcode;
  }
  return 0;
}

namespace {

// `diff`'s options as typed; its callback adds the --fail-on categories.
struct DiffArgs {
  DiffOptions diff;
  std::vector<std::string> fail_on;  // each a comma list
};

int diff_from_args(DiffArgs& args) {
  if (absl::Status fail_on = add_fail_on_categories(args.fail_on, &args.diff.fail_on); !fail_on.ok()) {
    spdlog::error("{}", std::string(fail_on.message()));
    return kUsageExitCode;
  }
  return diff_command(args.diff);
}

}  // namespace

void add_diff_command(CLI::App& app, SubcommandContext& context) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand("diff", "Compare two findings JSON files: new, fixed and changed findings");
  cmd->add_option("base", args->diff.base, "Findings JSON of the base run (--format json=FILE)")->required();
  cmd->add_option("new", args->diff.now, "Findings JSON of the new run")->required();
  cmd->add_option("--format", args->diff.format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--include-warmup", args->diff.include_warmup, "Compare warm-up and teardown findings too");
  cmd->add_option("--fail-on", args->fail_on, "Categories whose new findings fail (default: all)");
  cmd->add_option("--error-exitcode", args->diff.error_exitcode, "Exit status when findings were added (default 3)")
      ->check(CLI::Range(0, kMaxExitStatus));
  cmd->callback([args, &context] { context.exit_status = diff_from_args(*args); });
}

}  // namespace syncscope
