#include "policy/gate.h"

#include <algorithm>
#include <cstdio>

#include "policy/category_list.h"

namespace syncscope {

std::optional<Budget> GatePolicy::budget_for(Category c) const {
  for (auto it = budgets.rbegin(); it != budgets.rend(); ++it) {
    if (it->category == c) return *it;
  }
  if (fail_on.count(c)) return Budget{c, 0, false};
  return std::nullopt;
}

std::vector<CategoryVerdict> judge(const GatePolicy& policy, const std::map<Category, CategoryTally>& tallies,
                                   uint64_t steps) {
  std::vector<CategoryVerdict> out;
  for (Category c : kAllCategories) {
    CategoryVerdict v;
    v.category = c;
    auto t = tallies.find(c);
    if (t != tallies.end()) v.tally = t->second;
    std::optional<Budget> budget = policy.budget_for(c);
    v.gated = budget.has_value();
    v.observed = static_cast<double>(v.tally.events);
    if (budget) {
      v.budget = *budget;
      if (budget->per_step && steps > 0) {
        v.observed = static_cast<double>(v.tally.events) / static_cast<double>(steps);
      } else if (budget->per_step) {
        // Without steps a per-step figure cannot be had; comparing the total
        // is strict, and the reason says so, rather than letting a run pass
        // unchecked.
        v.steps_unknown = true;
      }
      // A tiny tolerance: 40 events over 40 steps is exactly 1/step.
      v.failed = v.observed > budget->limit + 1e-9;
      if (v.failed) {
        char buffer[160];
        if (budget->per_step && !v.steps_unknown) {
          std::snprintf(buffer, sizeof(buffer), "%.2f/step > %s", v.observed, budget_limit_text(*budget).c_str());
        } else {
          std::snprintf(buffer, sizeof(buffer), "%llu > %s%s", static_cast<unsigned long long>(v.tally.events),
                        budget_limit_text(*budget).c_str(),
                        v.steps_unknown ? " (no steps detected: total compared)" : "");
        }
        v.reason = buffer;
      }
    }
    out.push_back(v);
  }
  return out;
}

bool counts_against_gate(const GatePolicy& policy, Phase phase, bool suppressed, bool known) {
  const bool in_phase = phase == Phase::kSteady || policy.include_warmup;
  return in_phase && !suppressed && !known;
}

uint64_t gated_steps(const GatePolicy& policy, uint64_t steady_steps, double step_ns, uint64_t run_ns) {
  if (steady_steps == 0 || !policy.include_warmup || step_ns <= 0 || run_ns == 0) return steady_steps;
  return std::max<uint64_t>(steady_steps, static_cast<uint64_t>(static_cast<double>(run_ns) / step_ns));
}

}  // namespace syncscope
