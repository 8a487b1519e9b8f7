#include "policy/suppressions.h"

#include <gtest/gtest.h>

namespace syncscope {
namespace {

TEST(Suppressions, ParsesRulesCommentsAndBlankLines) {
  auto rules = parse_suppressions(
      "# header\n\nhidden-sync:log_metrics   # trailing comment\n  all: ^legacy_eval.py \n"
      "hidden-sync:train.py:42\n",
      "rules.txt");
  ASSERT_TRUE(rules.ok()) << rules.status();
  ASSERT_EQ(rules->size(), 3u);
  EXPECT_EQ((*rules)[0].pattern, "log_metrics");
  EXPECT_EQ((*rules)[0].source, "rules.txt:3");
  EXPECT_EQ((*rules)[0].categories.size(), 1u);
  EXPECT_EQ((*rules)[1].pattern, "^legacy_eval.py");
  EXPECT_EQ((*rules)[1].categories.size(), 4u);
  EXPECT_EQ((*rules)[2].pattern, "train.py:42");  // the pattern may hold ':'
}

TEST(Suppressions, ErrorsNameTheFileAndLine) {
  auto unknown = parse_suppressions("hidden-sync:x\nhiden-sync:y\n", "f");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(std::string(unknown.status().message()).find("f:2: unknown category 'hiden-sync'"), std::string::npos);
  auto no_colon = parse_suppressions("\n\njust words\n", "g");
  ASSERT_FALSE(no_colon.ok());
  EXPECT_NE(std::string(no_colon.status().message()).find("g:3: expected category:pattern"), std::string::npos);
  auto empty = parse_suppressions("pageable-copy:   \n", "h");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(std::string(empty.status().message()).find("h:1: empty pattern"), std::string::npos);
  EXPECT_FALSE(load_suppressions("/nonexistent/rules").ok());
}

TEST(Suppressions, FirstMatchingRuleOfTheCategoryWins) {
  auto rules = parse_suppressions("pageable-copy:step\nhidden-sync:^step$\nall:train.py\n", "r");
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(find_suppression(*rules, Category::kHiddenSync, {"train.py:9", "train.py", "step"}), 1);
  EXPECT_EQ(find_suppression(*rules, Category::kPageableCopy, {"train.py:9", "train.py", "step"}), 0);
  EXPECT_EQ(find_suppression(*rules, Category::kAllocatorChurn, {"train.py:9"}), 2);
  EXPECT_EQ(find_suppression(*rules, Category::kDefaultStream, {"model.py:3", "forward"}), -1);
}

}  // namespace
}  // namespace syncscope
