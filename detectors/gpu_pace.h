// The steps' pace as the GPU finished them, where the host ran ahead.
//
// A phase's step time is the host's (segmentation/phases.h): from a step's
// start to the next's. A host that queues faster than a GPU-bound loop runs
// ahead until the driver's queue is full, and while its queue grows its steps
// are shorter than the GPU's: overlap_copies.py on an H200, 60 steps, read
// 3.59 ms a step on the host against 8.16 ms as the GPU ran them. With a full
// GPU timeline the queue's length at a moment is known: how long after it the
// GPU finished the work queued before it. The phase's steps at the GPU's pace
// are its host steps plus the growth of that backlog over the phase, spread
// over its steps.
#pragma once

#include <vector>

#include "segmentation/phases.h"
#include "trace/reader.h"

namespace syncscope {

// The report says the GPU's pace beside the host's step where it is this
// much longer: a few percent is the phase's ends, not a host running ahead.
inline constexpr double kGpuPaceWorthSaying = 1.05;

// Sets PhaseInfo::gpu_paced_step_ns of each phase with steps, from a full
// GPU timeline; a sampled one (trace.gpu_windows) or none leaves it 0.
void set_gpu_paced_steps(const ProcessTrace& trace, std::vector<PhaseInfo>* phases);

// How long after `t` the GPU finished the work of the calls that started
// before `t` (0: nothing was queued then, or it was done by `t`).
uint64_t gpu_backlog_at(const ProcessTrace& trace, uint64_t t);

}  // namespace syncscope
