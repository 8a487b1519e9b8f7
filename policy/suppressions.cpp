#include "policy/suppressions.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "policy/category_list.h"
#include "policy/input_file.h"
#include "policy/pattern.h"
#include "policy/text_util.h"

namespace syncscope {

absl::StatusOr<std::vector<SuppressionRule>> parse_suppressions(std::string_view text, const std::string& source_name) {
  std::vector<SuppressionRule> rules;
  int line_no = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    std::string where = source_name + ":" + std::to_string(line_no);
    size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return absl::InvalidArgumentError(where + ": expected category:pattern, got '" + std::string(line) + "'");
    }
    std::string_view category = trim(line.substr(0, colon));
    std::string_view pattern = trim(line.substr(colon + 1));
    SuppressionRule rule;
    if (category == "all") {
      rule.categories.insert(std::begin(kAllCategories), std::end(kAllCategories));
    } else if (auto c = parse_category(category)) {
      rule.categories.insert(*c);
    } else {
      return absl::InvalidArgumentError(where + ": unknown category '" + std::string(category) +
                                        "' (known: " + known_categories() + ")");
    }
    // "^" or "$" alone, or "*" alone, would suppress every finding of the
    // category: allowed, but an empty pattern is almost certainly a typo.
    if (pattern.empty())
      return absl::InvalidArgumentError(where + ": empty pattern after '" + std::string(category) + ":'");
    rule.pattern = std::string(pattern);
    rule.source = where;
    rule.text = std::string(line);
    rules.push_back(std::move(rule));
  }
  return rules;
}

absl::StatusOr<std::vector<SuppressionRule>> load_suppressions(const std::string& path) {
  absl::StatusOr<std::string> text = read_input_file(path, "suppressions file");
  if (!text.ok()) return text.status();
  return parse_suppressions(*text, path);
}

int find_suppression(const std::vector<SuppressionRule>& rules, Category category,
                     const std::vector<std::string>& site_strings) {
  for (size_t i = 0; i < rules.size(); ++i) {
    if (!rules[i].categories.count(category)) continue;
    for (const std::string& s : site_strings) {
      if (pattern_matches(rules[i].pattern, s)) return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace syncscope
