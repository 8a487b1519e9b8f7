// `syncscope diff BASE.json NEW.json`: prints the findings a change added,
// fixed or changed. Exit status: 0 when nothing was added, the gate's exit
// code (default 3) when a finding of a --fail-on category (default: any)
// was added, 2 when a file cannot be read.
#pragma once

#include <set>
#include <string>

#include "detectors/finding.h"
#include "tools/subcommand.h"

namespace syncscope {

struct DiffOptions {
  std::string base, now;
  std::string format = "text";  // text | json
  bool include_warmup = false;
  std::set<Category> fail_on;  // empty: every category
  int error_exitcode = 3;
};

int diff_command(const DiffOptions& options);

// `diff` and its options (tools/subcommand.h).
void add_diff_command(CLI::App& app, SubcommandContext& context);

}  // namespace syncscope
