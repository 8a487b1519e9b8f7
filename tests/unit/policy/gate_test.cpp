#include "policy/gate.h"

#include <gtest/gtest.h>

#include "policy/category_list.h"

namespace syncscope {
namespace {

TEST(Budget, ParsesCountsPerStepAndAll) {
  auto b = parse_budget("hidden-sync=1/step");
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ((*b)[0].category, Category::kHiddenSync);
  EXPECT_TRUE((*b)[0].per_step);
  EXPECT_EQ(budget_limit_text((*b)[0]), "1/step");
  auto count = parse_budget("allocator-churn=0");
  ASSERT_TRUE(count.ok());
  EXPECT_FALSE((*count)[0].per_step);
  EXPECT_EQ(parse_budget("all=2.5/step")->size(), 4u);
  for (const char* bad :
       {"hidden-sync", "hidden-sync=", "hidden-sync=-1", "hidden-sync=x/step", "hidden-sync=1/epoch", "nope=1"}) {
    EXPECT_FALSE(parse_budget(bad).ok()) << bad;
  }
}

TEST(CategoryList, CommaListsAndAll) {
  EXPECT_EQ(parse_category_list("hidden-sync, pageable-copy")->size(), 2u);
  EXPECT_EQ(parse_category_list("all")->size(), 4u);
  EXPECT_FALSE(parse_category_list("hidden-sync,bogus").ok());
  EXPECT_FALSE(parse_category_list(" , ").ok());
}

TEST(Gate, FailOnIsABudgetOfZeroAndALaterBudgetWins) {
  GatePolicy policy;
  EXPECT_FALSE(policy.enabled());
  policy.fail_on = {Category::kHiddenSync};
  EXPECT_TRUE(policy.enabled());
  EXPECT_EQ(policy.budget_for(Category::kHiddenSync)->limit, 0);
  EXPECT_FALSE(policy.budget_for(Category::kPageableCopy).has_value());
  policy.budgets = {{Category::kHiddenSync, 5, false}, {Category::kHiddenSync, 1, true}};
  EXPECT_EQ(policy.budget_for(Category::kHiddenSync)->limit, 1);
  EXPECT_TRUE(policy.budget_for(Category::kHiddenSync)->per_step);
}

TEST(Gate, JudgesPerStepAndCountBudgets) {
  GatePolicy policy;
  policy.budgets = {{Category::kHiddenSync, 1, true}, {Category::kAllocatorChurn, 0, false}};
  std::map<Category, CategoryTally> tallies = {{Category::kHiddenSync, {40, 1}}, {Category::kPageableCopy, {99, 2}}};
  auto verdicts = judge(policy, tallies, 40);
  ASSERT_EQ(verdicts.size(), 4u);
  EXPECT_FALSE(verdicts[0].failed);  // exactly 1/step passes
  EXPECT_DOUBLE_EQ(verdicts[0].observed, 1.0);
  EXPECT_FALSE(verdicts[1].gated);  // pageable-copy is not gated
  EXPECT_FALSE(verdicts[1].failed);
  EXPECT_TRUE(verdicts[2].gated);
  EXPECT_FALSE(verdicts[2].failed);  // no churn
  tallies[Category::kHiddenSync] = {80, 2};
  tallies[Category::kAllocatorChurn] = {3, 1};
  verdicts = judge(policy, tallies, 40);
  EXPECT_TRUE(verdicts[0].failed);
  EXPECT_EQ(verdicts[0].reason, "2.00/step > 1/step");
  EXPECT_TRUE(verdicts[2].failed);
  EXPECT_EQ(verdicts[2].reason, "3 > 0");
}

TEST(Gate, PerStepBudgetWithoutStepsComparesTheTotalAndSaysSo) {
  GatePolicy policy;
  policy.budgets = {{Category::kHiddenSync, 1, true}};
  auto verdicts = judge(policy, {{Category::kHiddenSync, {5, 1}}}, 0);
  EXPECT_TRUE(verdicts[0].failed);
  EXPECT_TRUE(verdicts[0].steps_unknown);
  EXPECT_NE(verdicts[0].reason.find("no steps detected"), std::string::npos) << verdicts[0].reason;
}

}  // namespace
}  // namespace syncscope
