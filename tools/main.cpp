// The syncscope command line: run, report, attach, diff, dump. Each subcommand adds
// itself, with its options, from its own tools/<name>_command.cpp
// (tools/subcommand.h); adding one is one line here.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "tools/attach_command.h"
#include "tools/diff_command.h"
#include "tools/dump_command.h"
#include "tools/pipe_signal.h"
#include "tools/report_command.h"
#include "tools/run_command.h"
#include "tools/subcommand.h"

namespace {

void setup_logging() {
  auto logger = spdlog::stderr_color_mt("syncscope");
  logger->set_pattern("syncscope: %^%l%$: %v");
  spdlog::set_default_logger(logger);
}

}  // namespace

int main(int argc, char** argv) {
  syncscope::ignore_sigpipe();  // a closed pipe must not change the exit status (tools/pipe_signal.h)
  setup_logging();
  CLI::App app{"syncscope: find where the host waits on the GPU, or starves it"};
  app.set_version_flag("--version", std::string("syncscope ") + SYNCSCOPE_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Exit status: the command's own (128+N if killed by signal N; 126/127 if it could not be started); when it "
      "succeeded, 4 if a gate was set but the recording is incomplete (an unusable output directory, a trace that "
      "could not be written or was deleted, dropped events), 3 (--error-exitcode) if the gate failed, 1 if the report "
      "could not be made; 2 for usage errors.");

  syncscope::SubcommandContext context;
  syncscope::add_run_command(app, context);
  syncscope::add_report_command(app, context);
  syncscope::add_attach_command(app, context);
  syncscope::add_diff_command(app, context);
  syncscope::add_dump_command(app, context);
  return syncscope::parse_and_run(app, context, argc, argv);
}
