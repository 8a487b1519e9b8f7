// The terminal report of recorded traces: per process, a table of CUDA APIs
// (calls, host time, bytes), dropped events, and the call sites that cost
// the most host time, with their native stacks.
#pragma once

#include <ostream>
#include <vector>

#include "report/report_model.h"

namespace syncscope {

struct TextReportOptions {
  int top_stacks = 5;   // stacks listed per process
  int max_frames = 12;  // frames listed per stack
  int max_findings = 10;  // steady-state findings listed per process
  bool color = false;     // ANSI colour (set for a terminal, unless NO_COLOR)
};

void render_text_report(const Report& report, const TextReportOptions& options, std::ostream& out);

}  // namespace syncscope
