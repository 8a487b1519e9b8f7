// The --budget, --fail-on and --fail-on-saving parsers (policy/budget.h,
// policy/category_list.h, policy/saving_gate.h) on arbitrary text: a value
// or an error, never a crash; an accepted limit is finite and >= 0 (a
// saving threshold a share from 0 to 1), and the text the report prints for
// it parses back.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "policy/budget.h"
#include "policy/category_list.h"
#include "policy/saving_gate.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace syncscope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<Budget>> budgets = parse_budget(text);
  if (budgets.ok()) {
    FUZZ_CHECK(!budgets->empty());
    for (const Budget& b : *budgets) {
      FUZZ_CHECK(std::isfinite(b.limit) && b.limit >= 0);
      const std::string again_text = std::string(category_name(b.category)) + "=" + budget_limit_text(b);
      absl::StatusOr<std::vector<Budget>> again = parse_budget(again_text);
      FUZZ_CHECK(again.ok() && again->size() == 1);
      FUZZ_CHECK((*again)[0].category == b.category && (*again)[0].per_step == b.per_step);
    }
  }
  absl::StatusOr<std::set<Category>> list = parse_category_list(text);
  FUZZ_CHECK(!list.ok() || !list->empty());
  absl::StatusOr<double> saving = parse_saving_threshold(text);
  if (saving.ok()) {
    FUZZ_CHECK(std::isfinite(*saving) && *saving >= 0 && *saving <= 1);
    FUZZ_CHECK(parse_saving_threshold(saving_threshold_text(*saving)).ok());
  }
  return 0;
}
