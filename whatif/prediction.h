// The step time a fix saves, predicted by replaying the recorded steps with
// and without it (issue 27, docs/what-if.md). With GPU times measured (a GPU
// timeline) the prediction is one figure; from host timing alone it is the
// interval between the two GPU bounds of gpu_estimate.h.
#pragma once

#include <cstdint>
#include <vector>

#include "whatif/gpu_estimate.h"
#include "whatif/replay.h"
#include "whatif/what_if.h"

namespace syncscope::whatif {

enum class Basis : uint8_t { kMeasured, kHostBound };
const char* basis_name(Basis basis);  // "measured", "host-bound"

struct Prediction {
  Basis basis = Basis::kMeasured;
  double recorded_step_ns = 0;  // the mean step as recorded (recorded_step_ends)
  double replayed_step_ns = 0;  // the recorded program replayed (the model's error: against recorded_step_ns)
  // The mean step with the fixes, and the saving per step; the interval's two
  // ends for kHostBound (low <= high), equal for kMeasured.
  double step_without_low_ns = 0, step_without_high_ns = 0;
  double saving_low_ns = 0, saving_high_ns = 0;

  double replay_error() const;  // |replayed - recorded| / recorded
  // Whether the model fits the program: its replay of the recorded steps is
  // within kMaxReplayError of them. When it is not, what it says of a fix
  // is not worth telling (analysis/predictions.cpp gives no saving).
  bool fits() const;
};

// On a GPU the replay came within 1.3% of the recorded steps, 17% before a
// free's own time was kept (docs/what-if.md); on the fake runtime under a
// loaded CI machine, 22%. A replay half off misses what the program does
// (the generated long trace of the golden reports: 79%).
inline constexpr double kMaxReplayError = 0.50;

// The end of each recorded step (Op::step), from the first op's start, as a
// replayed step ends: the later of the host's time (host_before + call +
// waited, as recorded) and, with a full GPU timeline, the GPU finishing the
// work queued so far (Op::recorded_gpu_end_ns). The host's time alone is
// short where the host runs ahead of a GPU-bound loop: overlap_copies.py's
// steps averaged 7.42 ms on the host while its queue grew to 265 ms, and the
// GPU ran them at 8.07 ms (docs/what-if.md).
std::vector<uint64_t> recorded_step_ends(const Program& program);

// What every fix of one recorded program is compared with, prepared once:
// the program with its GPU times (measured, or estimated both ways) and each
// waiting call's unexplained time as host work, and each such base replayed
// as recorded. Steps [first, last) are compared (the steady ones).
struct Baseline {
  Basis basis = Basis::kMeasured;
  uint32_t first = 0, last = 0;
  double recorded_step_ns = 0;
  std::vector<Program> bases;     // kMeasured: one; kHostBound: the low and the high GPU bound
  std::vector<double> before_ns;  // each base's mean step, replayed as recorded
};
// `gpu_measured`: the ops' gpu_ns are measured, else they are estimated both ways.
Baseline baseline(const Program& recorded, uint32_t first, uint32_t last, bool gpu_measured);

// The baseline with `fixes` applied. `marks` (what_if.h): the sites the
// fixes name, op by op, when the recorded program was prepared without
// them; null: the program's own.
Prediction predict(const Baseline& baseline, const std::vector<SiteFix>& fixes, const OpMarks* marks = nullptr);

// baseline() and predict() in one, for a program that carries its sites.
Prediction predict(const Program& recorded, const std::vector<SiteFix>& fixes, uint32_t first, uint32_t last,
                   bool gpu_measured);

}  // namespace syncscope::whatif
