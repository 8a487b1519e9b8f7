// A phase as the step search builds it: its steady steps as time intervals,
// the stretches of the run it covers, and what segmentation/phases.h reports
// of it once finished.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "segmentation/phases.h"
#include "segmentation/steps.h"

namespace syncscope::segmentation {

// A loop is a loop from two steady steps on: one step past warm-up could be
// anything that ran twice.
inline constexpr size_t kMinSteadySteps = 2;

// Steps counted as warm-up when StepOptions::warmup_steps is automatic.
// Optimizer steps (markers or backward bursts): PyTorch's caching allocator
// settles in the second step, once the optimizer's state exists.
inline constexpr int kOptimizerWarmupSteps = 2;
// A repeating pattern: its first repeat already runs the loop's own calls.
inline constexpr int kPatternWarmupSteps = 1;

// options.warmup_steps, or `automatic` when it is left to the search.
inline size_t warmup_steps(const StepOptions& options, int automatic) {
  return static_cast<size_t>(options.warmup_steps >= 0 ? options.warmup_steps : automatic);
}

// A step is "interrupted" (eval, a checkpoint, logging inside it) when it
// lasts this many times the median step.
inline constexpr double kInterruptedFactor = 2.0;
// Interrupted steps are counted from this many steps on: the median of
// fewer says nothing about an ordinary step.
inline constexpr size_t kMinStepsToJudgeInterrupted = 3;

// A phase's steady steps as [start, end) times, in order.
struct Steps {
  std::vector<uint64_t> starts;
  std::vector<uint64_t> ends;
  size_t size() const { return starts.size(); }
  // A step lasts at least a nanosecond: an end at its start would hold nothing.
  void add(uint64_t start, uint64_t end) {
    starts.push_back(start);
    ends.push_back(std::max(end, start + 1));
  }
  // Step containing (or last before) t; only for t >= starts.front().
  uint32_t at(uint64_t t) const {
    return static_cast<uint32_t>(std::upper_bound(starts.begin(), starts.end(), t) - starts.begin() - 1);
  }
};

struct PhaseSteps {
  PhaseInfo info;
  Steps steps;
  std::vector<std::pair<uint64_t, uint64_t>> spans;  // [begin, end) stretches the phase covers (sub-phases)
};

// Fills phase.info's step counts and times from phase.steps, each step
// timed by its own interval (steps of a further phase abut within each of
// its stretches).
void finish_phase(PhaseSteps& phase);

// The main phase's step times once its further phases are known: a step
// lasts from its start to the next step's (the last to its own end), less
// the further phases' stretches (`others`) inside, so that work a step
// search leaves between two steps (a read-back that broke the pattern's
// run, a log line) is the earlier step's, as its calls are
// (event_places.h), and the steps add up to the phase's own time.
void time_to_next_step(PhaseSteps& main, std::vector<std::pair<uint64_t, uint64_t>> others);

}  // namespace syncscope::segmentation
