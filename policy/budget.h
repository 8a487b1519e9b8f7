// Per-category budgets: `--budget hidden-sync=1/step` (at most one event of
// the category per training step) or `--budget allocator-churn=0` (at most
// N events in the whole counted part of the run). `all=N[/step]` sets every
// category.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "detectors/finding.h"

namespace syncscope {

struct Budget {
  Category category = Category::kHiddenSync;
  double limit = 0;
  bool per_step = false;
};

absl::StatusOr<std::vector<Budget>> parse_budget(std::string_view spec);
std::string budget_limit_text(const Budget& b);  // "1/step", "0"

}  // namespace syncscope
