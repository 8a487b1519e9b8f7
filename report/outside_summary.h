// Findings outside steady state (warm-up, teardown) as one table row per
// category and user line. A real job's warm-up touches dozens of sites a few
// times each; what a person needs from them is which lines, how often and
// how much host time, not one finding each.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "report/report_model.h"

namespace syncscope {

struct OutsideRow {
  Category category = Category::kHiddenSync;
  std::string site;    // "train.py:42", "read_loss_value (app)", else the API sequence
  std::string source;  // the user line's text, "" when unknown
  uint64_t warmup_calls = 0;
  uint64_t teardown_calls = 0;
  uint64_t host_ns = 0;
};

// Rows of a process's unsuppressed warm-up and teardown findings, most host
// time first.
std::vector<OutsideRow> summarize_outside_steady(const ProcessReport& process);

// The table under an "outside steady state" heading; at most `max_rows`
// rows (negative: all), the rest counted in one line.
void render_outside_table(const std::vector<OutsideRow>& rows, int max_rows, std::ostream& out);

}  // namespace syncscope
