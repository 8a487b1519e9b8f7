// Steps from backward passes: each loss.backward() call leaves a marker under
// `syncscope run`, and autograd runs the pass on its own thread, in a burst
// while the main thread waits. For training without torch.optim (a manual
// SGD update) or a process attached after the fact, where no optimizer-step
// marker is left.
#pragma once

#include <cstdint>
#include <vector>

#include "segmentation/phase_steps.h"
#include "trace/event.h"

namespace syncscope::segmentation {

// A backward pass starts at each backward marker of the busiest marker
// site (python/sitecustomize.py marks each loss.backward() call); without
// enough markers (attach, `python -I`, SYNCSCOPE_STEP_MARKERS=0), the busiest
// other thread's launches between two calls of the main thread are one
// burst, one pass. A step runs from one pass's start to the next's, or from
// every k-th under gradient accumulation. True when that makes the main
// phase ("train"); *main_tid then becomes the markers' thread. On false
// `out` may hold what an attempt left: its info and steps are then
// overwritten or added to by the pattern search.
bool steps_from_backward(const std::vector<Event>& events, const StepOptions& options, uint32_t* main_tid,
                         PhaseSteps* out);

}  // namespace syncscope::segmentation
