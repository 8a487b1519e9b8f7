// Steps from backward passes: autograd runs them on its own thread, in
// bursts while the main thread waits. For training without torch.optim (a
// manual SGD update) or a process attached after the fact, where no
// optimizer-step marker is left.
#pragma once

#include <cstdint>
#include <vector>

#include "detectors/segmentation/phase_steps.h"
#include "trace/event.h"

namespace syncscope::segmentation {

// The busiest other thread's launches, between two calls of the main
// thread, are one burst; a step runs from one burst's start to the next's,
// or from every k-th under gradient accumulation. True when that makes the
// main phase ("train"). On false `out` may hold what an attempt left: its
// info and steps are then overwritten or added to by the pattern search.
bool steps_from_backward(const std::vector<Event>& events, const StepOptions& options, uint32_t main_tid,
                         PhaseSteps* out);

}  // namespace syncscope::segmentation
