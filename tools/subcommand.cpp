#include "tools/subcommand.h"

#include <CLI/CLI.hpp>

namespace syncscope {

int parse_and_run(CLI::App& app, SubcommandContext& context, int argc, char** argv) {
  // `syncscope run [options] -- COMMAND ARGS...`: everything after the first
  // "--" is the command, untouched by option parsing.
  int parsed_argc = argc;
  if (argc > 1 && context.take_program_after_dashes.count(argv[1]) != 0) {
    for (int i = 2; i < argc; ++i) {
      if (std::string(argv[i]) == "--") {
        context.program_after_dashes.assign(argv + i + 1, argv + argc);
        parsed_argc = i;
        break;
      }
    }
  }
  try {
    app.parse(parsed_argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kUsageExitCode;
  }
  return context.exit_status;
}

}  // namespace syncscope
