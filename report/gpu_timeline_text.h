// The words the text and HTML reports share for the GPU timeline
// (docs/gpu-timeline.md): why a trace has none, and when it was sampled
// ("Sampling") which steps the figures come from, or why there are none.
#pragma once

#include <string>

#include "detectors/gpu_attribution.h"
#include "trace/reader.h"

namespace syncscope {

// "1 s every 10 s" from the trace's gpu_timeline.sampling; "" when the
// timeline was full (or the key is absent or malformed).
std::string gpu_sampling_words(const ProcessTrace& trace);

// "38 of 400 steps, 1 s every 10 s" when some of the phase's steps fell
// outside the sampling windows; "" when every step was measured.
std::string gpu_sampled_steps_text(const ProcessTrace& trace, const GpuPhaseFigures& figures);

// Why a trace has no GPU figures, in words to follow "GPU " or "GPU: " (""
// when it has them): "timeline off: WHY", "timeline not recorded (...)", not
// asked for, off and why, no sampling window opened, or no GPU work.
std::string gpu_timeline_absence(const ProcessTrace& trace, bool has_gpu_figures);

// Where a prediction is estimated from host timing, how to get it measured,
// to follow "estimated from host timing": "--gpu-timeline measures it" when
// no timeline was asked for; "--gpu-timeline=full measures it" when one
// was (a sampled one whose windows missed the steps: the run was short);
// "the GPU timeline was off: WHY" when it could not be recorded.
std::string measure_advice(const ProcessTrace& trace);

// For a phase whose steps all fell outside the windows: why (steps longer
// than a window, or a short run whose steps fell between windows) and what
// to do.
std::string gpu_no_timed_step_text(const ProcessTrace& trace, const PhaseInfo& phase);

// "8.06 ms as the GPU finished them (the host ran ahead)", to follow a
// phase's step time, where its steps at the GPU's pace are kGpuPaceWorthSaying
// longer (detectors/gpu_pace.h); else "".
std::string gpu_pace_text(const PhaseInfo& phase);

}  // namespace syncscope
