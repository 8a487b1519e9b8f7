// Suppression files in the sanitizers' spirit: one `category:pattern` rule
// per line, `#` starts a comment, blank lines are ignored.
//
//   # known: logging every 100 steps reads the loss
//   hidden-sync:log_metrics
//   allocator-churn:*/third_party/*
//   all:^legacy_eval.py:
//
// The category is one of the finding categories or `all`. The pattern
// (policy/pattern.h) is matched against every string that names the
// finding's site: the user frame ("file:line", the file, the function),
// each Python frame ("file:line", the function) and each native frame (the
// symbol, the module). A finding is suppressed by the first rule that
// matches. An unknown category or a malformed line is an error naming the
// file and line.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "detectors/finding.h"

namespace syncscope {

struct SuppressionRule {
  std::set<Category> categories;  // all of them for `all:`
  std::string pattern;
  std::string source;  // "file:line", for the report
  std::string text;    // the rule as written
};

// `source_name` names the file in messages and in each rule's `source`.
absl::StatusOr<std::vector<SuppressionRule>> parse_suppressions(std::string_view text, const std::string& source_name);
absl::StatusOr<std::vector<SuppressionRule>> load_suppressions(const std::string& path);

// Index of the first rule that suppresses a finding of `category` whose
// site is named by `site_strings`, or -1.
int find_suppression(const std::vector<SuppressionRule>& rules, Category category,
                     const std::vector<std::string>& site_strings);

}  // namespace syncscope
