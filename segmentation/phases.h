// The program's structure: the recurring phases of a run (the training loop,
// evaluation passes) and the steps of each. Computed once per process by
// segmentation/segmentation.h and shared by every detector and renderer.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace syncscope {

// Where an event (or a finding) sits in the run: before the first steady
// step, in a step of a recurring phase, or after the last step.
enum class Phase { kWarmup, kSteady, kTeardown };
const char* phase_name(Phase p);  // "warmup", "steady", "teardown"

// How a phase's steps were found, most trusted first.
enum class StepSource {
  kOptimizerStep,  // one step per torch.optim optimizer.step() (a marker event)
  kNvtxRange,      // one step per outermost NVTX range of the most frequent name (torch.cuda.nvtx, nvtx3)
  kBackward,       // one step per backward pass: backward markers, else bursts of autograd's own thread
  kPattern,        // the repeating pattern of calls on the phase's main thread
  kTime,           // no steps: a time-based warm-up only
};
const char* step_source_name(StepSource s);  // "optimizer-step", "nvtx-range", "backward", "pattern", "time"
// Steps that mark a training loop (optimizer steps, NVTX ranges, backward
// passes): the further phases found beside it are its evaluation passes,
// "eval"; beside a mere pattern they are "loop-2".
bool is_training_source(StepSource s);

struct PhaseInfo {
  std::string name;  // "train", "eval", "eval-2", ...
  StepSource source = StepSource::kPattern;
  uint64_t steps = 0;              // steady steps of this phase
  uint32_t calls_per_step = 0;     // pattern calls per step (median for marker steps)
  // A step's time: from its start to the next step's (the last: to its own
  // end), the work between steps included and further phases' stretches
  // (eval) left out; the mean over the phase's steady steps, so steps x
  // step_ns is the phase's own time. Shares of step time are of this.
  double step_ns = 0;
  uint64_t start_ns = 0;           // first steady step's start
  uint64_t end_ns = 0;             // last steady step's end (exclusive)
  uint64_t interrupted_steps = 0;  // train steps much longer than the median (eval, checkpoint, logging inside)
  uint32_t marker_stack_id = 0;    // the optimizer.step() call site (kOptimizerStep), else 0
  uint32_t nvtx_name_id = 0;       // kNvtxRange: the kString id of the range's name (the phase takes the name)
  double median_step_ns = 0;       // the median of the steps' times (0: not known)
  // With a full GPU timeline, the mean step as the GPU finished the steps:
  // longer than step_ns where the host ran ahead of a GPU-bound loop
  // (detectors/gpu_pace.h). 0: not known.
  double gpu_paced_step_ns = 0;
};

// A phase's name: an NVTX phase's range name from the trace's strings, else
// the name segmentation gave it.
std::string phase_name(const PhaseInfo& phase, const std::unordered_map<uint32_t, std::string>& strings);

}  // namespace syncscope
