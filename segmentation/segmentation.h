// Where each event sits in the program's structure: warm-up, a step of a
// recurring phase (the training loop, an evaluation pass), or teardown.
//
// The rule, most trusted source first:
//  1. Optimizer steps. Under `syncscope run`, each torch.optim
//     optimizer.step() leaves a marker event (preload/python/sitecustomize.py).
//     The training loop's steps are the intervals between markers of the most
//     frequent marker site; the first `warmup_steps` (default 2: PyTorch's
//     caching allocator settles once the optimizer's state exists) are
//     warm-up. This holds
//     whatever the model looks like: identical layers, gradient accumulation
//     (k backward passes, one step), torch.compile, variable-length batches.
//     Without optimizer markers (or NVTX ranges): backward passes, one step
//     per loss.backward() marker (the same sitecustomize), else per burst of
//     autograd's backward thread (or per k under gradient accumulation).
//  2. Otherwise the repeating pattern of calls on the thread that made the
//     first call (segmentation/period_search.h): the dominant period over the
//     whole run, not the last loop's.
//  3. Otherwise a time-based warm-up.
// A step's time runs from its start to the next step's, the work between
// included (segmentation/phases.h, PhaseInfo::step_ns).
// Then evaluation passes: the calls of steps much longer than the median
// (eval every N steps, checkpoints) and after the last step, searched for a
// pattern of their own. Their repeats form further phases ("eval"), each
// with its own steps. Whatever lies inside the training loop's span and in no
// other phase belongs to the training loop (logging every N steps, a
// checkpoint): only what comes before the first steady step is warm-up and
// only what comes after the last step of any phase is teardown.
//
// Each of these steps has its own file in segmentation/ (listed at
// the top of segmentation.cpp), each threshold a named constant there.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "segmentation/phases.h"
#include "segmentation/steps.h"
#include "trace/event.h"

namespace syncscope {

// A further phase (eval) takes at least this share of the main phase's
// time: a few repeats of a kernel pair left over from a pass's last,
// shorter batch are not one. Whole and windowed analyses both apply it.
inline constexpr double kMinPhaseShare = 0.01;

struct EventPlace {
  Phase phase = Phase::kWarmup;
  int16_t phase_index = -1;  // into Segmentation::phases when steady
  uint32_t step = 0;         // step of that phase (0-based among its steady steps)
};

// What one recorded call cost the GPU in steady steps, from the GPU timeline
// (detectors/gpu_attribution.h; docs/gpu-timeline.md). Empty without one.
struct EventGpuCost {
  uint64_t idle_ns = 0;          // GPU idle charged to this call (it held the host while the GPU ran dry)
  uint64_t copy_ns = 0;          // GPU time of its copies
  uint64_t copy_overlap_ns = 0;  // of which kernels on other streams ran at the same time
};

struct Segmentation {
  StepInfo main;                       // the main phase as StepInfo (detected == a phase was found)
  std::vector<PhaseInfo> phases;       // main phase first
  std::vector<EventPlace> places;      // one per event
  // Calls attributed to the Python line that waited for them
  // (segmentation/waiters.h), by event index: only calls with a stack and no
  // Python frames can be, a few in a trace, so a map rather than a column
  // (8 bytes a call on a trace of 10^8 calls).
  struct Waiter {
    uint32_t stack = 0;  // stack of the waiting Python line (0: none)
    uint32_t tid = 0;
  };
  std::unordered_map<size_t, Waiter> waiters;
  const Event* base = nullptr;  // events.data(): places are indexed by &event - base
  // One per event when the trace has a GPU timeline (GPU work recorded),
  // else empty: the detectors' findings then carry no GPU figures.
  std::vector<EventGpuCost> gpu_cost;
  // Per phase: its steps with GPU figures (inside a sampling window), when
  // the timeline was sampled; empty otherwise (every step has them).
  std::vector<uint64_t> gpu_timed_steps;

  size_t index_of(const Event& e) const { return static_cast<size_t>(&e - base); }
  Waiter waiter_of(size_t index) const {
    auto it = waiters.find(index);
    return it == waiters.end() ? Waiter{} : it->second;
  }
  // The steps of phase `index` that per-step GPU figures divide by.
  uint64_t gpu_steps(int index) const {
    if (index < 0 || static_cast<size_t>(index) >= phases.size()) return 0;
    const size_t i = static_cast<size_t>(index);
    return i < gpu_timed_steps.size() ? gpu_timed_steps[i] : phases[i].steps;
  }
};

// events sorted by start time.
Segmentation segment_run(const std::vector<Event>& events, const StepOptions& options);

}  // namespace syncscope
