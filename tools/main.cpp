// The syncscope command line: run, attach, report, diff, dump.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>

#include "policy/category_list.h"
#include "tools/attach_command.h"
#include "tools/diff_command.h"
#include "tools/dump_command.h"
#include "tools/duration.h"
#include "tools/policy_options.h"
#include "tools/report_command.h"
#include "tools/run_command.h"

namespace {

void setup_logging() {
  auto logger = spdlog::stderr_color_mt("syncscope");
  logger->set_pattern("syncscope: %^%l%$: %v");
  spdlog::set_default_logger(logger);
}

// Options that shape the report, the same for `run` and `report`.
struct ReportArgs {
  syncscope::PolicyArgs policy;
  std::vector<std::string> formats;
};

void add_report_options(CLI::App* app, syncscope::ReportSettings* settings, ReportArgs* args) {
  app->add_flag("--details", settings->display.details,
                "Also print per process the table of CUDA APIs and the call sites that cost the most host time");
  app->add_option("--top", settings->display.top_stacks, "Call sites listed per process with --details (default 5)");
  app->add_flag("--full-frames", settings->display.full_frames,
                "Print every frame of a finding as symbolised: no elided templates, no folded dispatcher frames");
  app->add_option("--format", args->formats,
                  "Report format F or F=FILE, F one of text (default), json, sarif, junit, github; repeatable");
  app->add_option("--warmup", settings->analysis.steps.warmup_seconds,
                  "Seconds of warm-up when no repeating step pattern is found (default 10% of the run)");
  app->add_option("--warmup-steps", settings->analysis.steps.warmup_steps,
                  "Steps counted as warm-up once steps are found (default 2 for optimizer steps, 1 for a repeating pattern)")
      ->check(CLI::Range(0, 1000000));
  syncscope::add_policy_options(app, &args->policy);
}

// Formats and policy, checked before anything runs; false after printing why.
bool resolve_report_args(const ReportArgs& args, syncscope::ReportSettings* settings) {
  std::string error;
  if (!syncscope::parse_output_formats(args.formats, &settings->formats, &error)) {
    spdlog::error("--format: {}", error);
    return false;
  }
  auto policy = syncscope::resolve_policy(args.policy);
  if (!policy.ok()) {
    spdlog::error("{}", std::string(policy.status().message()));
    return false;
  }
  settings->analysis.policy = std::move(*policy);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  setup_logging();
  CLI::App app{"syncscope: find where the host waits on the GPU, or starves it"};
  app.set_version_flag("--version", std::string("syncscope ") + SYNCSCOPE_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Exit status: the command's own (128+N if killed by signal N; 126/127 if it could not be started); when it "
      "succeeded, 4 if a gate was set but the recording is incomplete (an unusable output directory, a trace that "
      "could not be written or was deleted, dropped events), 3 (--error-exitcode) if the gate failed, 1 if the report "
      "could not be made; 2 for usage errors.");

  syncscope::RunOptions run;
  ReportArgs run_args;
  unsigned flush_ms = 0, ring_events = 0;
  bool no_report = false, no_stacks = false;
  CLI::App* run_cmd = app.add_subcommand("run", "Run a command with the recorder injected, then report");
  run_cmd->add_option("-o,--output", run.output_dir, "Trace directory (default ./syncscope-<timestamp>)");
  run_cmd->add_flag("--force", run.force, "Replace traces already in the output directory");
  run_cmd->add_flag("--no-report", no_report, "Record only; print no report (files from --format F=FILE are written)");
  run_cmd->add_flag("--no-stacks", no_stacks, "Do not capture native stacks");
  run_cmd->add_flag("--gpu-timeline", run.gpu_timeline,
                    "Also record the GPU's activity with CUPTI (experimental: not yet proven on a GPU)");
  run_cmd->add_flag("--dormant", run.dormant,
                    "Install the hooks but record nothing until `syncscope attach PID` (cost: one load per CUDA call)");
  run_cmd->add_option("--flush-ms", flush_ms, "Collector flush interval in ms (default 50)")->check(CLI::Range(1, 60000));
  run_cmd->add_option("--ring-events", ring_events, "Events per thread ring (default 16384)")
      ->check(CLI::Range(64, 1 << 24));
  add_report_options(run_cmd, &run.report_settings, &run_args);
  // Everything from the first positional argument (or after --) is the
  // command, its own options included: `syncscope run -- python train.py --lr 0.1`.
  run_cmd->prefix_command();
  run_cmd->footer("COMMAND [ARGS...] follows the options, best after --");

  std::string report_dir;
  syncscope::ReportSettings report_settings;
  ReportArgs report_args;
  CLI::App* report_cmd = app.add_subcommand("report", "Print the report of a recorded trace directory");
  report_cmd->add_option("dir", report_dir, "Trace directory")->required();
  add_report_options(report_cmd, &report_settings, &report_args);

  syncscope::AttachOptions attach;
  ReportArgs attach_args;
  std::string attach_duration;
  bool attach_no_report = false, attach_no_inject = false;
  double inject_timeout_s = 10;
  CLI::App* attach_cmd =
      app.add_subcommand("attach", "Record running processes for a while, then report; they carry on untouched");
  attach_cmd->add_option("pid", attach.pids, "Process ids to attach to");
  attach_cmd->add_option("--all", attach.pattern,
                         "Attach to every CUDA process whose command line contains PATTERN (like pgrep -f)");
  attach_cmd->add_option("-d,--duration", attach_duration, "How long to record: 30s, 500ms, 2m (default: until Ctrl-C)");
  attach_cmd->add_option("-o,--output", attach.output_dir, "Trace directory (default ./syncscope-attach-<timestamp>)");
  attach_cmd->add_flag("--force", attach.force, "Replace traces already in the output directory");
  attach_cmd->add_flag("--no-inject", attach_no_inject,
                       "Only attach to processes started with `syncscope run --dormant`; never use ptrace");
  attach_cmd->add_option("--inject-timeout", inject_timeout_s, "Seconds the injected dlopen may take (default 10)")
      ->check(CLI::Range(0.1, 600.0));
  attach_cmd->add_flag("--no-report", attach_no_report, "Record only; print no report");
  add_report_options(attach_cmd, &attach.report_settings, &attach_args);

  syncscope::DiffOptions diff;
  std::vector<std::string> diff_fail_on;
  CLI::App* diff_cmd = app.add_subcommand("diff", "Compare two findings JSON files: new, fixed and changed findings");
  diff_cmd->add_option("base", diff.base, "Findings JSON of the base run (--format json=FILE)")->required();
  diff_cmd->add_option("new", diff.now, "Findings JSON of the new run")->required();
  diff_cmd->add_option("--format", diff.format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
  diff_cmd->add_flag("--include-warmup", diff.include_warmup, "Compare warm-up and teardown findings too");
  diff_cmd->add_option("--fail-on", diff_fail_on, "Categories whose new findings fail (default: all)");
  diff_cmd->add_option("--error-exitcode", diff.error_exitcode, "Exit status when findings were added (default 3)")
      ->check(CLI::Range(0, 255));

  syncscope::DumpOptions dump;
  CLI::App* dump_cmd =
      app.add_subcommand("dump", "Print what trace files hold: header, counts, threads; events, stacks, phases");
  dump_cmd->add_option("path", dump.path, "A trace file (*.sstrace) or a trace directory")->required();
  CLI::Option* dump_events =
      dump_cmd->add_option("--events", dump.max_events, "List the events in time order (at most N per trace)")
          ->expected(0, 1);
  dump_cmd->add_flag("--stacks", dump.stacks, "Print the interned stacks, symbolised, and the loaded modules");
  dump_cmd->add_flag("--phases", dump.phases, "Print the segmentation: phases, steps, events per phase");
  dump_cmd->add_flag("--json", dump.json, "One JSON document instead of text");
  dump_cmd->add_option("--warmup", dump.steps.warmup_seconds, "As for report");
  dump_cmd->add_option("--warmup-steps", dump.steps.warmup_steps, "As for report")->check(CLI::Range(0, 1000000));

  // `syncscope run [options] -- COMMAND ARGS...`: everything after the first
  // "--" is the command, untouched by option parsing.
  std::vector<std::string> command_after_dashes;
  int parsed_argc = argc;
  if (argc > 1 && std::string(argv[1]) == "run") {
    for (int i = 2; i < argc; ++i) {
      if (std::string(argv[i]) == "--") {
        command_after_dashes.assign(argv + i + 1, argv + argc);
        parsed_argc = i;
        break;
      }
    }
  }
  try {
    app.parse(parsed_argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (run_cmd->parsed()) {
    if (!resolve_report_args(run_args, &run.report_settings)) return 2;
    run.command = run_cmd->remaining();
    if (!run.command.empty() && !command_after_dashes.empty()) {
      spdlog::error("unexpected arguments before --: {}", run.command.front());
      return 2;
    }
    if (run.command.empty()) run.command = command_after_dashes;
    run.report = !no_report;
    run.stacks = !no_stacks;
    if (flush_ms) run.flush_ms = flush_ms;
    if (ring_events) run.ring_events = ring_events;
    return syncscope::run_command(run);
  }
  if (attach_cmd->parsed()) {
    if (!resolve_report_args(attach_args, &attach.report_settings)) return 2;
    if (!attach_duration.empty()) {
      attach.duration_ms = syncscope::parse_duration_ms(attach_duration);
      if (!attach.duration_ms) {
        spdlog::error("--duration: '{}' is not a duration (30s, 500ms, 2m, 1h)", attach_duration);
        return 2;
      }
    }
    if (attach.pids.empty() && attach.pattern.empty()) {
      spdlog::error("attach to what? syncscope attach PID... or syncscope attach --all PATTERN");
      return 2;
    }
    attach.inject = !attach_no_inject;
    attach.inject_timeout_ms = static_cast<int>(inject_timeout_s * 1000);
    attach.report = !attach_no_report;
    return syncscope::attach_command(attach);
  }
  if (diff_cmd->parsed()) {
    for (const std::string& list : diff_fail_on) {
      auto categories = syncscope::parse_category_list(list);
      if (!categories.ok()) {
        spdlog::error("--fail-on: {}", std::string(categories.status().message()));
        return 2;
      }
      diff.fail_on.insert(categories->begin(), categories->end());
    }
    return syncscope::diff_command(diff);
  }
  if (dump_cmd->parsed()) {
    dump.events = dump_events->count() > 0;
    return syncscope::dump_command(dump);
  }
  if (!resolve_report_args(report_args, &report_settings)) return 2;
  syncscope::ReportOutcome outcome = syncscope::report_directory(report_dir, report_settings);
  return syncscope::report_exit_status(outcome, report_settings);
}
