// How tools/main.cpp and the subcommands meet. Each tools/<name>_command.cpp
// has an add_<name>_command(app, context) that adds its subcommand to the
// app: its options, and a callback that CLI11 runs once the whole command
// line parsed (only for the subcommand given), which checks what CLI11
// cannot, runs the command and leaves its exit status in the context.
// Adding a subcommand is its file and one line in tools/main.cpp.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace syncscope {

// Exit status of a usage error: CLI11's own, and what a callback finds wrong
// with its options before it runs anything.
inline constexpr int kUsageExitCode = 2;

struct SubcommandContext {
  // Left by the callback of the subcommand that ran.
  int exit_status = 0;
  // Subcommands that start a program (`run`): on their command line
  // everything after the first "--" is the program and its arguments, kept
  // from option parsing and handed over whole in `program_after_dashes`.
  std::set<std::string> take_program_after_dashes;
  std::vector<std::string> program_after_dashes;
};

// Parses argv and runs the subcommand it names: the exit status that
// subcommand left; 0 after --help or --version; kUsageExitCode when the
// command line does not parse.
int parse_and_run(CLI::App& app, SubcommandContext& context, int argc, char** argv);

}  // namespace syncscope
