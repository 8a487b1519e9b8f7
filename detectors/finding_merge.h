// Arithmetic on findings of one phase: whether a site recurs every N steps,
// and adding one finding into another (the report merges findings whose
// sync line, operation and phase are the same, report/report_model.cpp).
// The periodic rule lives here only: the aggregator, the windowed analysis
// and the report's merge all call it.
#pragma once

#include <cstdint>
#include <vector>

#include "detectors/finding.h"

namespace syncscope {

// A site seen in fewer than this share of its phase's steps is periodic (or
// occasional): its spacing is reported ("every 10 steps").
inline constexpr double kPeriodicShare = 0.6;

// The median spacing of the steps in `steps` (ascending): 0 when fewer than two.
uint64_t median_step_gap(const std::vector<FindingStepCount>& steps);

// Finding::every_n_steps for a site seen in `steps_with` of `phase_steps`
// steps, `steps` those kept: 0 when it is not periodic; the median spacing
// of the kept steps, else `phase_steps / steps_with` when too few are kept.
uint64_t periodic_every(const std::vector<FindingStepCount>& steps, uint64_t steps_with, uint64_t phase_steps);

// The per-step figures of a steady finding of a phase of `phase_steps`
// steps whose mean step is `step_ns` (0: unknown), from its totals and
// steps_with: per_step, blocked_ns_per_step, step_share (of the mean step:
// a median shorter than the mean would make shares over 100%) and
// every_n_steps. The whole and the windowed analyses both call it.
void set_per_step_figures(Finding& f, uint64_t phase_steps, double step_ns);

// Adds `other` (same category, phase and phase_index) into `into`: counts,
// host and GPU time, bytes and per-step figures add up; the steps they
// occurred in are merged by step, so steps_with and every_n_steps count
// steps, not sites; occurrences are merged by time (bounded). `into` keeps
// its site (stack) and API, and the prediction of the part that saves most
// (savings overlap, they do not add up); `phase_steps` is the phase's steady steps (0
// outside steady state).
void merge_finding(Finding& into, const Finding& other, uint64_t phase_steps);

}  // namespace syncscope
