// Category names as users write them on the command line and in files:
// "hidden-sync", "pageable-copy", "allocator-churn", "default-stream", "all".
#pragma once

#include <optional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "detectors/finding.h"

namespace syncscope {

inline constexpr Category kAllCategories[] = {Category::kHiddenSync, Category::kPageableCopy, Category::kAllocatorChurn,
                                              Category::kDefaultStream};

std::optional<Category> parse_category(std::string_view name);
// "hidden-sync, pageable-copy" or "all"; an unknown name is an error naming it.
absl::StatusOr<std::set<Category>> parse_category_list(std::string_view list);
// "hidden-sync, pageable-copy, allocator-churn, default-stream" for messages.
std::string known_categories();

}  // namespace syncscope
