// The CI gate: which categories fail a run, and by how much they may occur.
// `--fail-on C` gates C with a budget of 0; `--budget C=N[/step]` gates C
// with that budget (a later budget for a category replaces an earlier one);
// `--fail-on-saving P%` fails on each finding whose fix saves more than P% of
// a step (policy/saving_gate.h). The gate fails when any rule does.
// Only findings that count are tallied: steady state (all phases with
// --include-warmup), not suppressed, not in the baseline. The caller decides
// what counts; the gate only compares tallies with budgets.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "detectors/finding.h"
#include "policy/budget.h"

namespace syncscope {

inline constexpr int kDefaultGateExitCode = 3;
// A gate was set but the recording is incomplete (a trace could not be
// written, was deleted, lost events): the gate cannot pass on what it could
// not see. Distinct from the gate's own status, so CI tells a broken
// measurement from findings.
inline constexpr int kIncompleteRecordingExitCode = 4;

struct GatePolicy {
  std::set<Category> fail_on;
  std::vector<Budget> budgets;
  bool include_warmup = false;
  int exit_code = kDefaultGateExitCode;
  std::optional<double> fail_on_saving;  // a share of the step (0.02 for --fail-on-saving 2%)

  bool enabled() const { return !fail_on.empty() || !budgets.empty() || fail_on_saving.has_value(); }
  // The budget that applies to a category, if it is gated at all.
  std::optional<Budget> budget_for(Category c) const;
};

// What one process did in one category, over the counted findings.
struct CategoryTally {
  uint64_t events = 0;    // calls, summed over the findings
  uint64_t findings = 0;  // distinct sites
};

struct CategoryVerdict {
  Category category = Category::kHiddenSync;
  bool gated = false;
  Budget budget;  // meaningful when gated
  CategoryTally tally;
  double observed = 0;         // events, or events per step for a per-step budget
  bool steps_unknown = false;  // per-step budget but no steps found: total events compared
  bool failed = false;
  std::string reason;  // "2.00/step > 1/step"; empty when it passed
};

// One verdict per category (in kAllCategories order). `steps` is the number
// of steps the counted findings span (0: unknown).
std::vector<CategoryVerdict> judge(const GatePolicy& policy, const std::map<Category, CategoryTally>& tallies,
                                   uint64_t steps);

// Whether a finding counts against the gate: in steady state (any phase
// with --include-warmup), not suppressed, not in the baseline.
bool counts_against_gate(const GatePolicy& policy, Phase phase, bool suppressed, bool known);

// The steps per-step budgets divide by: the steps the counted findings
// span. The steady steps, or with --include-warmup every step of the run
// (the steady steps scaled to the run's length, `run_ns`).
uint64_t gated_steps(const GatePolicy& policy, uint64_t steady_steps, double step_ns, uint64_t run_ns);

}  // namespace syncscope
