// The findings' one order (detectors/finding_rank.h): steady first, then by
// the predicted saving's share of the step, else by severity; and what a
// merged line keeps of its parts' predictions (detectors/finding_merge.h).
#include "detectors/finding_rank.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "detectors/finding_merge.h"

namespace syncscope {
namespace {

Finding with_severity(double severity, Phase phase = Phase::kSteady) {
  Finding f;
  f.phase = phase;
  f.severity = severity;
  return f;
}

Finding with_saving(double severity, double low_ns, double high_ns, double step_ns = 1e6) {
  Finding f = with_severity(severity);
  f.predicted = true;
  f.predicted_fix = "read-later";
  f.saving_ns_per_step_low = low_ns;
  f.saving_ns_per_step_high = high_ns;
  f.prediction_step_ns = step_ns;
  return f;
}

TEST(FindingRank, SharesOfTheStepFromThePrediction) {
  const Finding f = with_saving(0.9, 100e3, 300e3);
  EXPECT_DOUBLE_EQ(saving_share_low(f), 0.1);
  EXPECT_DOUBLE_EQ(saving_share_high(f), 0.3);
  EXPECT_DOUBLE_EQ(saving_share_mid(f), 0.2);
  EXPECT_DOUBLE_EQ(rank_share(f), 0.2) << "the prediction, not the severity";
  EXPECT_DOUBLE_EQ(rank_share(with_severity(0.07)), 0.07) << "no prediction: the severity";
  EXPECT_DOUBLE_EQ(rank_share(with_saving(0.07, 1e3, 1e3, 0)), 0.07) << "no step to share: the severity";
}

TEST(FindingRank, SteadyFirstThenByPredictedSavingElseSeverity) {
  // The host-blocked figure (severity) would put the first first; what
  // fixing each saves puts it last (issue 27's GPU-bound loop).
  std::vector<Finding> findings = {with_saving(0.84, 10e3, 10e3), with_severity(0.5, Phase::kWarmup),
                                   with_saving(0.05, 300e3, 400e3), with_severity(0.2)};
  std::stable_sort(findings.begin(), findings.end(), ranks_before);
  EXPECT_DOUBLE_EQ(findings[0].saving_ns_per_step_low, 300e3);  // 35% of the step
  EXPECT_DOUBLE_EQ(findings[1].severity, 0.2);                  // 20%, no prediction
  EXPECT_DOUBLE_EQ(findings[2].saving_ns_per_step_low, 10e3);   // 1%
  EXPECT_EQ(findings[3].phase, Phase::kWarmup);                 // whatever its severity
}

TEST(FindingRank, AMergedLineKeepsItsLargestPartsPrediction) {
  Finding into = with_severity(0.3);  // the highest ranked part, not predicted
  merge_finding(into, with_saving(0.1, 50e3, 70e3), 10);
  ASSERT_TRUE(into.predicted);
  EXPECT_DOUBLE_EQ(into.saving_ns_per_step_low, 50e3);
  merge_finding(into, with_saving(0.1, 200e3, 200e3), 10);
  EXPECT_DOUBLE_EQ(into.saving_ns_per_step_low, 200e3) << "the larger saving";
  merge_finding(into, with_saving(0.1, 20e3, 20e3), 10);
  EXPECT_DOUBLE_EQ(into.saving_ns_per_step_high, 200e3) << "savings overlap: never added up";
  EXPECT_DOUBLE_EQ(into.severity, 0.6) << "the costs still add up";
}

}  // namespace
}  // namespace syncscope
