// --fail-on-saving (policy/saving_gate.h): the percentage's parse, and which
// findings fail it: the low end of the saving over the threshold; counted
// findings without a prediction are not judged.
#include "policy/saving_gate.h"

#include <gtest/gtest.h>

#include "policy/gate.h"

namespace syncscope {
namespace {

Finding predicted(double low_ns, double high_ns, bool measured) {
  Finding f;
  f.predicted = true;
  f.prediction_measured = measured;
  f.saving_ns_per_step_low = low_ns;
  f.saving_ns_per_step_high = high_ns;
  f.prediction_step_ns = 1e6;
  return f;
}

TEST(SavingGate, ParsesAPercentage) {
  EXPECT_DOUBLE_EQ(*parse_saving_threshold("2%"), 0.02);
  EXPECT_DOUBLE_EQ(*parse_saving_threshold(" 0.5% "), 0.005);
  EXPECT_DOUBLE_EQ(*parse_saving_threshold("0%"), 0.0);
  EXPECT_DOUBLE_EQ(*parse_saving_threshold("100%"), 1.0);
  for (const char* bad : {"2", "", "%", "x%", "-1%", "101%", "2%%", "2 %x", "nan%", "0.02"}) {
    auto parsed = parse_saving_threshold(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(std::string(parsed.status().message()).find("expected a percentage like 2%"), std::string::npos)
        << parsed.status().message();
  }
  EXPECT_EQ(saving_threshold_text(0.02), "2%");
  EXPECT_EQ(saving_threshold_text(0.005), "0.5%");
}

TEST(SavingGate, TheLowEndMustExceedTheThreshold) {
  const std::optional<double> two = 0.02;
  EXPECT_EQ(check_saving(two, predicted(30e3, 30e3, true), true), SavingCheck::kOver);
  EXPECT_EQ(check_saving(two, predicted(20e3, 20e3, true), true), SavingCheck::kUnder) << "not more than 2%";
  // From host timing an interval: 1% to 5% might save 5%, but is not sure to save over 2%.
  EXPECT_EQ(check_saving(two, predicted(10e3, 50e3, false), true), SavingCheck::kUnder);
  EXPECT_EQ(check_saving(two, predicted(25e3, 50e3, false), true), SavingCheck::kOver);
  EXPECT_EQ(saving_over_reason(0.02, predicted(25e3, 50e3, false)), "saves at least 2.5% of a step > 2%");
  EXPECT_EQ(saving_over_reason(0.02, predicted(160e3, 160e3, true)), "saves 16.0% of a step > 2%");
}

TEST(SavingGate, WithoutAPredictionNotJudgedAndUncountedNotGated) {
  const std::optional<double> two = 0.02;
  EXPECT_EQ(check_saving(two, Finding{}, true), SavingCheck::kNotPredicted);
  EXPECT_EQ(check_saving(two, predicted(900e3, 900e3, true), false), SavingCheck::kNotGated) << "suppressed, known";
  EXPECT_EQ(check_saving(std::nullopt, predicted(900e3, 900e3, true), true), SavingCheck::kNotGated);
  EXPECT_STREQ(saving_check_name(SavingCheck::kNotPredicted), "not-judged");
  EXPECT_EQ(saving_check_name(SavingCheck::kNotGated), nullptr);
}

// A side stream's saving is a ceiling: over the threshold it may save more,
// or nothing, so it is not judged; at or under it, it saves no more.
TEST(SavingGate, ACeilingPassesUnderTheThresholdAndIsNotJudgedOverIt) {
  const std::optional<double> two = 0.02;
  Finding over = predicted(300e3, 300e3, true);
  over.prediction_ceiling = true;
  EXPECT_EQ(check_saving(two, over, true), SavingCheck::kNotPredicted);
  Finding under = predicted(10e3, 10e3, true);
  under.prediction_ceiling = true;
  EXPECT_EQ(check_saving(two, under, true), SavingCheck::kUnder);
  Finding interval = predicted(10e3, 30e3, false);
  interval.prediction_ceiling = true;
  EXPECT_EQ(check_saving(two, interval, true), SavingCheck::kNotPredicted) << "its high end is over";
}

TEST(SavingGate, EnablesTheGateAlone) {
  GatePolicy policy;
  policy.fail_on_saving = 0.02;
  EXPECT_TRUE(policy.enabled());
  EXPECT_FALSE(policy.budget_for(Category::kHiddenSync).has_value()) << "no category is gated by it";
}

}  // namespace
}  // namespace syncscope
