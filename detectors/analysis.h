// Runs steady-state detection and every detector over one process's trace.
#pragma once

#include <array>
#include <vector>

#include "detectors/finding.h"
#include "detectors/gpu_attribution.h"
#include "segmentation/phases.h"
#include "segmentation/steps.h"
#include "trace/reader.h"

namespace syncscope {

// One steady step for the pictures (report/html_report.h): its span, the
// host time the findings summed in Analysis::blocked_ns_per_step cost in it,
// and, with a GPU timeline, the GPU's busy time and idle time by cause.
struct StepFigures {
  StepSpan span;
  uint64_t host_blocked_ns = 0;
  uint64_t gpu_busy_ns = 0;
  std::array<uint64_t, kGpuIdleCauses> gpu_idle_by_cause{};  // sums to the span less gpu_busy_ns
};

// The bound of a sum of savings whose parts may be floors ("saves at
// least"), ceilings ("at most") or plain predictions: a floor where some
// part is one and none is a ceiling, a ceiling the other way round, else
// neither (the parts pull both ways).
struct SavingBounds {
  bool any_floor = false, any_ceiling = false;
  void add(bool floor, bool ceiling) {
    any_floor = any_floor || floor;
    any_ceiling = any_ceiling || ceiling;
  }
  void add(const SavingBounds& other) { add(other.any_floor, other.any_ceiling); }
  bool floor() const { return any_floor && !any_ceiling; }
  bool ceiling() const { return any_ceiling && !any_floor; }
};

// Every steady finding of a phase fixed at once, as predicted by replaying
// its steady steps (issue 27, docs/what-if.md).
struct AllFixedPrediction {
  int phase_index = -1;       // into Analysis::phases
  bool measured = false;      // GPU times from the timeline; else an interval from host timing
  double recorded_step_ns = 0;
  double replayed_step_ns = 0;
  double step_ns_without_low = 0, step_ns_without_high = 0;
  // The replay came within whatif::kMaxReplayError of the recorded steps;
  // if not, the phase's findings carry no prediction and the report says why.
  bool fits = true;
  // Some of the phase's fixes save at least what the replay says
  // (whatif::saving_is_a_floor) and none at most: so does fixing them all;
  // and the other way round (SavingBounds).
  bool floor = false;
  bool ceiling = false;
  // What fixing them all saves a step, as a finding's saving is taken: the
  // replay as recorded minus the replay without them. Not the recorded step
  // minus step_ns_without_*, which would add the replay's error to it.
  double saving_ns_low = 0, saving_ns_high = 0;
};

struct Analysis {
  StepInfo steps;                  // the main (training) phase's steps, as every detector uses them
  std::vector<PhaseInfo> phases;   // recurring phases, the main one first (empty: no steps found)
  std::vector<Finding> findings;   // ranked: steady first, then by predicted saving, else severity (detectors/finding_rank.h)
  double blocked_ns_per_step = 0;  // steady hidden-sync + pageable host time per step (0 if no steps)
  // GPU timeline (docs/gpu-timeline.md): only when the trace has GPU work.
  bool gpu_timeline = false;              // kernels, copies or memsets were recorded
  std::vector<GpuPhaseFigures> gpu;       // busy and idle by cause, per phase with steps
  std::vector<StepFigures> step_figures;  // every steady step of every phase, by phase then step
  std::vector<AllFixedPrediction> all_fixed;  // per phase with predicted findings
  // The GPU figures of phase `index` (into `phases`), nullptr when none.
  const GpuPhaseFigures* gpu_for_phase(size_t index) const;
};

Analysis analyze(const ProcessTrace& trace, const StepOptions& options = {});

// Host time lost: syncs, plus pageable copies that were meant to be async
// (synchronous pageable copies are already counted as syncs).
bool counts_as_blocked(const Finding& f);
// Adds the steady findings' lost host time to blocked_ns_per_step, and each
// finding's steps' to its step figures (sorted by phase, then step).
void add_blocked_time(Analysis* a);

}  // namespace syncscope
