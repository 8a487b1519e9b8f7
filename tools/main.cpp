// The syncscope command line: run, report.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>

#include "tools/report_command.h"
#include "tools/run_command.h"

namespace {

void setup_logging() {
  auto logger = spdlog::stderr_color_mt("syncscope");
  logger->set_pattern("syncscope: %^%l%$: %v");
  spdlog::set_default_logger(logger);
}

}  // namespace

int main(int argc, char** argv) {
  setup_logging();
  CLI::App app{"syncscope: find where the host waits on the GPU, or starves it"};
  app.set_version_flag("--version", std::string("syncscope ") + SYNCSCOPE_VERSION);
  app.require_subcommand(1);

  syncscope::RunOptions run;
  unsigned flush_ms = 0, ring_events = 0;
  bool no_report = false, no_stacks = false;
  CLI::App* run_cmd = app.add_subcommand("run", "Run a command with the recorder injected, then report");
  run_cmd->add_option("-o,--output", run.output_dir, "Trace directory (default ./syncscope-<timestamp>)");
  run_cmd->add_flag("--force", run.force, "Replace traces already in the output directory");
  run_cmd->add_flag("--no-report", no_report, "Record only; print no report");
  run_cmd->add_flag("--no-stacks", no_stacks, "Do not capture native stacks");
  run_cmd->add_option("--flush-ms", flush_ms, "Collector flush interval in ms (default 50)")->check(CLI::Range(1, 60000));
  run_cmd->add_option("--ring-events", ring_events, "Events per thread ring (default 16384)")
      ->check(CLI::Range(64, 1 << 24));
  run_cmd->add_option("--top", run.report_options.top_stacks, "Call sites listed per process (default 5)");
  std::vector<std::string> run_formats;
  run_cmd->add_option("--format", run_formats, "Report format: text (default), json, json=FILE; repeatable");
  run_cmd->add_option("--warmup", run.report_options.steps.warmup_seconds,
                      "Seconds of warm-up when no repeating step pattern is found (default 10% of the run)");
  run_cmd->add_option("--warmup-steps", run.report_options.steps.warmup_steps,
                      "Steps counted as warm-up once the step pattern is found (default 1)")
      ->check(CLI::Range(0, 1000000));
  // Everything from the first positional argument (or after --) is the
  // command, its own options included: `syncscope run -- python train.py --lr 0.1`.
  run_cmd->prefix_command();
  run_cmd->footer("COMMAND [ARGS...] follows the options, best after --");

  std::string report_dir;
  syncscope::TextReportOptions report_options;
  CLI::App* report_cmd = app.add_subcommand("report", "Print the report of a recorded trace directory");
  report_cmd->add_option("dir", report_dir, "Trace directory")->required();
  report_cmd->add_option("--top", report_options.top_stacks, "Call sites listed per process (default 5)");
  std::vector<std::string> report_formats;
  report_cmd->add_option("--format", report_formats, "Report format: text (default), json, json=FILE; repeatable");
  report_cmd->add_option("--warmup", report_options.steps.warmup_seconds,
                         "Seconds of warm-up when no repeating step pattern is found (default 10% of the run)");
  report_cmd->add_option("--warmup-steps", report_options.steps.warmup_steps,
                         "Steps counted as warm-up once the step pattern is found (default 1)")
      ->check(CLI::Range(0, 1000000));

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
  auto parse_formats = [](const std::vector<std::string>& specs, std::vector<syncscope::OutputFormat>* out) {
    if (specs.empty()) return true;
    out->clear();
    for (const std::string& spec : specs) {
      syncscope::OutputFormat f;
      std::string error;
      if (!syncscope::parse_output_format(spec, &f, &error)) {
        spdlog::error("{}", error);
        return false;
      }
      out->push_back(f);
    }
    return true;
  };
  if (run_cmd->parsed()) {
    if (!parse_formats(run_formats, &run.formats)) return 2;
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
  std::vector<syncscope::OutputFormat> formats = {{"text", ""}};
  if (!parse_formats(report_formats, &formats)) return 2;
  return syncscope::report_directory(report_dir, report_options, formats);
}
