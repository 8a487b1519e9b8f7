// The findings' order, in one place: every format lists findings in it
// (the analysis ranks them, again once predictions are added; the report
// again after merging findings of one line). Issue 27: what fixing a
// finding saves is the ranking key when it is predicted.
#pragma once

#include "detectors/finding.h"

namespace syncscope {

// A predicted finding's saving as a share of its phase's step
// (Finding::prediction_step_ns): the interval's two ends and its midpoint.
// 0 when not predicted or the step is unknown.
double saving_share_low(const Finding& f);
double saving_share_high(const Finding& f);
double saving_share_mid(const Finding& f);

// What a finding is ranked by: the midpoint of its predicted saving as a
// share of the step when it is predicted, else its severity (already a share
// of the step: the host's or the GPU's time lost per step). Both are shares
// of one step, so predicted and unpredicted findings rank on one scale.
double rank_share(const Finding& f);

// Steady state first, then by rank_share, worst first.
bool ranks_before(const Finding& x, const Finding& y);

}  // namespace syncscope
