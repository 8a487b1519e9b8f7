// The text report's lines for what fixing a finding is predicted to save
// (issue 27, docs/what-if.md): one per predicted finding, one for all of a
// phase's findings fixed at once.
#pragma once

#include <cstdint>
#include <string>

#include "detectors/analysis.h"
#include "detectors/finding.h"

namespace syncscope {

// "fixing it (read-later) saves 410 µs a step (17%), measured"; "" when the
// finding has no prediction. `step_ns`: its phase's step
// (Finding::prediction_step_ns); `advice`: how to get an estimate from host
// timing measured instead (measure_advice, report/gpu_timeline_text.h).
std::string predicted_saving_text(const Finding& f, double step_ns, const std::string& advice);

// The fix replayed, as the text and HTML name it: "drop-read-back with the
// setting's 7 other operations" where the replay also took the operations a
// library setting drops (Finding::predicted_dropped_operations), so that a
// saving far above the read's own wait says where it comes from.
std::string predicted_fix_words(const Finding& f);

// "at least " for a floor (whatif::saving_is_a_floor), "at most " for a
// ceiling (whatif::saving_is_a_ceiling), "" otherwise: before a saving's
// one figure, in text and HTML alike.
const char* saving_bound_words(bool floor, bool ceiling);

// "fixing every steady finding saves 390 µs a step (16%), measured".
std::string all_fixed_text(const AllFixedPrediction& p, const std::string& advice);

// Under --fail-on-saving, for counted findings without a prediction or
// with a ceiling above the threshold: "--fail-on-saving: 3 findings could
// not be judged (no predicted saving, or only a ceiling above it) and do
// not fail it".
std::string not_judged_text(uint64_t findings);

}  // namespace syncscope
