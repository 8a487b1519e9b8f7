// The last step of the segmentation (segmentation/segmentation.h): every
// event's place, warm-up, a step of a phase, or teardown.
#pragma once

#include <vector>

#include "segmentation/segmentation.h"
#include "segmentation/phase_steps.h"
#include "trace/event.h"

namespace syncscope::segmentation {

// No phase found: warm-up for the first --warmup seconds (default
// kDefaultWarmupShare of the run), steady after, no teardown. Sets
// seg->main's steady span; seg->main.end_ns must be set.
void place_by_time(const std::vector<Event>& events, const StepOptions& options, Segmentation* seg);

// Phases found (the main phase first): an event in one of a further
// phase's stretches is in that phase; else one in the main phase's span is
// in the main phase; else it is warm-up before the main phase's first step
// and teardown after its last. A stretch of teardown between two further
// phases' stretches (between a validation and a test pass) stays teardown:
// it belongs to no loop.
void place_in_phases(const std::vector<Event>& events, const std::vector<PhaseSteps>& phases, Segmentation* seg);

// Share of the run counted as warm-up when no steps are found and
// --warmup is not given.
inline constexpr double kDefaultWarmupShare = 0.1;

}  // namespace syncscope::segmentation
