#include "tools/report_options.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "tools/output_formats.h"

namespace syncscope {

// Bounds of --warmup-steps: a million steps of warm-up is already a typo.
constexpr int kMaxWarmupSteps = 1000000;
constexpr int kMaxTopStacks = 100000;
constexpr double kMaxWarmupSeconds = 365.0 * 24 * 3600;  // a year: anything longer is a typo

// A number of seconds: finite, not negative (CLI::Range lets NaN through).
const CLI::Validator kWarmupSeconds(
    [](const std::string& text) -> std::string {
      char* end = nullptr;
      const double value = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !std::isfinite(value) || value < 0 || value > kMaxWarmupSeconds) {
        return "--warmup takes seconds from 0 to " + std::to_string(static_cast<long>(kMaxWarmupSeconds)) + ", not " +
               text;
      }
      return "";
    },
    "SECONDS");

void add_display_options(CLI::App* app, TextReportOptions* display) {
  app->add_flag("--details", display->details,
                "Also print per process the table of CUDA APIs and the call sites that cost the most host time");
  app->add_option("--top", display->top_stacks, "Call sites listed per process with --details (default 5)")
      ->check(CLI::Range(0, kMaxTopStacks));
  app->add_flag("--full-frames", display->full_frames,
                "Print every frame of a finding as symbolised: no elided templates, no folded dispatcher frames");
}

void add_format_option(CLI::App* app, std::vector<std::string>* formats) {
  app->add_option(
      "--format", *formats,
      "Report format F or F=FILE, F one of text (default), json, sarif, junit, github, perfetto, html; repeatable");
}

void add_step_options(CLI::App* app, StepOptions* steps) {
  app->add_option("--warmup", steps->warmup_seconds,
                  "Seconds of warm-up when no repeating step pattern is found (default 10% of the run)")
      ->check(kWarmupSeconds);
  app->add_option(
         "--warmup-steps", steps->warmup_steps,
         "Steps counted as warm-up once steps are found (default 2 for optimizer steps, 1 for a repeating pattern)")
      ->check(CLI::Range(0, kMaxWarmupSteps));
}

void add_code_options(CLI::App* app, CodeOwnershipOptions* code) {
  app->add_option("--user-code", code->user_code,
                  "Files under PATH are your own code even if installed (an editable package): a finding's user "
                  "line is the innermost frame there; repeatable")
      ->type_name("PATH");
  app->add_option("--library-code", code->library_code,
                  "Files under PATH are a library's (a vendored copy, a framework in your tree): a finding names "
                  "its line that syncs and your line that reached it; repeatable")
      ->type_name("PATH");
}

void add_report_options(CLI::App* app, ReportSettings* settings, ReportArgs* args) {
  add_display_options(app, &settings->display);
  add_format_option(app, &args->formats);
  add_step_options(app, &settings->analysis.steps);
  add_code_options(app, &settings->analysis.code);
  add_policy_options(app, &args->policy);
}

bool resolve_report_args(const ReportArgs& args, ReportSettings* settings) {
  std::string error;
  if (!parse_output_formats(args.formats, &settings->formats, &error)) {
    spdlog::error("--format: {}", error);
    return false;
  }
  auto policy = resolve_policy(args.policy);
  if (!policy.ok()) {
    spdlog::error("{}", std::string(policy.status().message()));
    return false;
  }
  settings->analysis.policy = std::move(*policy);
  return true;
}

}  // namespace syncscope
