// `--fail-on-saving P%`: a budget on what fixing a finding saves (issue 27,
// docs/what-if.md). A counted finding fails the gate when the LOW end of its
// predicted saving per step is more than P% of its phase's step. The low
// end: from host timing alone the saving is an interval, and a CI gate
// should fail only on what the recording shows for certain, not on the
// optimistic bound (with a GPU timeline both ends are one figure).
// A counted finding without a prediction (outside steady state, a trace read
// in windows, no modelled fix) cannot be judged: it does not fail this rule,
// and the report says how many could not be judged, so the gate never passes
// over them in silence. Nor can a ceiling over the threshold (side-stream:
// "saves at most", whatif::saving_is_a_ceiling), which may save more than
// P% or nothing; a ceiling at or under it passes, since it saves no more.
// The rule stands beside --fail-on and --budget: the gate fails when any of
// them does.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "detectors/finding.h"

namespace syncscope {

// "2%" -> 0.02 (a share of the step); "2" without '%', negatives, over 100%
// and non-numbers are errors: "expected a percentage like 2% ...".
absl::StatusOr<double> parse_saving_threshold(std::string_view text);
// 0.02 -> "2%".
std::string saving_threshold_text(double share);

enum class SavingCheck {
  kNotGated,      // no --fail-on-saving, or the finding does not count
  kUnder,         // predicted, the low end at or under the threshold
  kOver,          // predicted, the low end over the threshold: fails the gate
  kNotPredicted,  // counted but no prediction, or a ceiling over the threshold: not judged
};

// "over", "under", "not-judged"; nullptr for kNotGated.
const char* saving_check_name(SavingCheck check);

// How a finding stands against --fail-on-saving (`threshold`: a share of
// the step, nullopt when the option was not given). `counted`: the finding
// counts against the gate (policy/gate.h counts_against_gate).
SavingCheck check_saving(const std::optional<double>& threshold, const Finding& f, bool counted);

// "saves at least 16% of a step > 2%" for a finding over the threshold.
std::string saving_over_reason(double threshold, const Finding& f);

}  // namespace syncscope
