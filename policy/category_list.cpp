#include "policy/category_list.h"
#include "policy/text_util.h"

namespace syncscope {

std::optional<Category> parse_category(std::string_view name) {
  for (Category c : kAllCategories) {
    if (name == category_name(c)) return c;
  }
  return std::nullopt;
}

std::string known_categories() {
  std::string out;
  for (Category c : kAllCategories) out += std::string(out.empty() ? "" : ", ") + category_name(c);
  return out + ", all";
}

absl::StatusOr<std::set<Category>> parse_category_list(std::string_view list) {
  std::set<Category> out;
  for (std::string_view part : split(list, ',')) {
    part = trim(part);
    if (part.empty()) continue;
    if (part == "all") {
      out.insert(std::begin(kAllCategories), std::end(kAllCategories));
      continue;
    }
    auto c = parse_category(part);
    if (!c) {
      return absl::InvalidArgumentError("unknown category '" + std::string(part) + "' (known: " + known_categories() +
                                        ")");
    }
    out.insert(*c);
  }
  if (out.empty()) return absl::InvalidArgumentError("empty category list (known: " + known_categories() + ")");
  return out;
}

}  // namespace syncscope
