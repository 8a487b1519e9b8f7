// The suppressions file parser (policy/suppressions.h) and the pattern
// matcher its rules use (policy/pattern.h), on arbitrary text. Any file
// must give rules or an error naming its line; each rule, written back as
// its own one-line file, must parse to the same rule; and matching a
// rule's pattern against the file's own lines must end (patterns come
// from files: no recursion, no runaway backtracking).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "policy/pattern.h"
#include "policy/suppressions.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace syncscope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<SuppressionRule>> rules = parse_suppressions(text, "fuzz.supp");
  if (!rules.ok()) {
    FUZZ_CHECK(rules.status().message().find("fuzz.supp:") == 0);
    return 0;
  }
  std::vector<std::string> sites;
  for (size_t at = 0; at < text.size() && sites.size() < 8;) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    sites.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }
  for (const SuppressionRule& rule : *rules) {
    FUZZ_CHECK(!rule.categories.empty() && !rule.pattern.empty());
    absl::StatusOr<std::vector<SuppressionRule>> again = parse_suppressions(rule.text, "again");
    FUZZ_CHECK(again.ok() && again->size() == 1);
    FUZZ_CHECK((*again)[0].categories == rule.categories && (*again)[0].pattern == rule.pattern);
    for (const std::string& site : sites) (void)pattern_matches(rule.pattern, site);
    // A pattern always finds itself once its anchors are gone.
    std::string_view bare = rule.pattern;
    if (!bare.empty() && bare.front() == '^') bare.remove_prefix(1);
    if (!bare.empty() && bare.back() == '$') bare.remove_suffix(1);
    FUZZ_CHECK(pattern_matches(rule.pattern, bare));
  }
  for (Category c : {Category::kHiddenSync, Category::kPageableCopy}) (void)find_suppression(*rules, c, sites);
  return 0;
}
