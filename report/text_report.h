// The terminal report of recorded traces. Per process a short header (the
// command, the phases and their steps, host time blocked per step), then
// each steady-state finding as one block that fits a screen (user line
// first), the warm-up and teardown findings as one table, the gate; with
// --details the table of CUDA APIs and the call sites that cost the most
// host time.
#pragma once

#include <ostream>
#include <vector>

#include "report/report_model.h"

namespace syncscope {

struct TextReportOptions {
  int top_stacks = 5;        // stacks listed per process (with details)
  int max_frames = 12;       // frames listed per top stack
  int max_findings = 10;     // steady-state findings listed per process
  int finding_frames = 6;    // native frames of their own per finding, after folding
  int python_frames = 3;     // Python frames per finding, from the user's innermost one
  int outside_rows = 8;      // rows of the warm-up/teardown table (all with details)
  bool details = false;      // the API table and top call sites (--details)
  bool full_frames = false;  // every frame, unelided and unfolded (--full-frames)
  bool color = false;        // ANSI colour (set for a terminal, unless NO_COLOR)
};

void render_text_report(const Report& report, const TextReportOptions& options, std::ostream& out);

}  // namespace syncscope
