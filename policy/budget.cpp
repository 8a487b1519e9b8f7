#include "policy/budget.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "policy/category_list.h"
#include "policy/text_util.h"

namespace syncscope {

absl::StatusOr<std::vector<Budget>> parse_budget(std::string_view spec) {
  std::string text(spec);
  size_t eq = spec.find('=');
  if (eq == std::string_view::npos) {
    return absl::InvalidArgumentError("budget '" + text + "': expected CATEGORY=N or CATEGORY=N/step");
  }
  std::string_view name = trim(spec.substr(0, eq));
  std::string_view value = trim(spec.substr(eq + 1));
  Budget b;
  if (value.size() >= 5 && value.substr(value.size() - 5) == "/step") {
    b.per_step = true;
    value.remove_suffix(5);
  }
  std::string number(value);
  char* end = nullptr;
  b.limit = number.empty() ? -1 : std::strtod(number.c_str(), &end);
  if ((end && *end) || number.empty() || !std::isfinite(b.limit) || b.limit < 0) {
    return absl::InvalidArgumentError("budget '" + text +
                                      "': the limit must be a number >= 0, optionally followed by /step");
  }
  std::vector<Budget> out;
  if (name == "all") {
    for (Category c : kAllCategories) {
      b.category = c;
      out.push_back(b);
    }
    return out;
  }
  auto c = parse_category(name);
  if (!c) {
    return absl::InvalidArgumentError("budget '" + text + "': unknown category '" + std::string(name) +
                                      "' (known: " + known_categories() + ")");
  }
  b.category = *c;
  out.push_back(b);
  return out;
}

std::string budget_limit_text(const Budget& b) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%g%s", b.limit, b.per_step ? "/step" : "");
  return buffer;
}

}  // namespace syncscope
