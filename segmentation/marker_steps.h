// Steps from optimizer-step markers, the most trusted source: under
// `syncscope run` each torch.optim optimizer.step() leaves a marker event
// (preload/python/sitecustomize.py), and a training step ends with it.
#pragma once

#include <cstdint>
#include <vector>

#include "segmentation/phase_steps.h"
#include "trace/api.h"
#include "trace/event.h"

namespace syncscope::segmentation {

// Positions of the `marker` events of the site (stack) that left the most
// (on a tie, the one that left the first); empty when there is none. One
// loop's markers share a line; another line's (a second optimizer, a
// backward() inside the pass) are not its steps.
std::vector<size_t> busiest_marker_site(const std::vector<Event>& events, ApiId marker);

// The main phase ("train") from the markers of the most frequent marker
// site; *main_tid becomes the thread that made them. False (nothing
// changed) when there are too few markers for steady steps.
bool steps_from_markers(const std::vector<Event>& events, const StepOptions& options, PhaseSteps* out,
                        uint32_t* main_tid);

// The main phase from NVTX ranges (docs/nvtx.md): the outermost ranges of
// the name and thread that made the most, when the calls inside them hold
// most of that thread's calls. Step k runs from range k's start to range
// k+1's (work between, an eval pass, is the step's extra work); the phase
// is named after the range (PhaseInfo::nvtx_name_id; the analysis, which
// has the trace's strings, writes the name). False when too few.
bool steps_from_nvtx_ranges(const std::vector<Event>& events, const StepOptions& options, PhaseSteps* out,
                            uint32_t* main_tid);

}  // namespace syncscope::segmentation
