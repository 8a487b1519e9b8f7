// GPU busy and idle time per step (issue 13, docs/gpu-timeline.md): how much
// of each step of each phase the GPU spent running kernels, copies and
// memsets, from the trace's GPU timeline and the segmentation's steps. A
// pure function of its inputs, like the detectors.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "segmentation/segmentation.h"
#include "trace/event.h"
#include "trace/reader.h"

namespace syncscope {

// One steady step: from its first call to the next step's first call (the
// phase's end for its last step).
struct StepSpan {
  int16_t phase_index = -1;  // into Segmentation::phases
  uint32_t step = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  // Inside one of the sampled timeline's bursts, so its GPU figures are
  // whole; always true with a full timeline (docs/gpu-timeline.md, "Sampling").
  bool gpu_timed = true;
};

using TimeSpans = std::vector<std::pair<uint64_t, uint64_t>>;

// events sorted by start (as segmented); spans sorted by phase, then step.
// gpu_windows: the trace's sorted sampling bursts (ProcessTrace::gpu_windows),
// empty when the whole run was covered.
std::vector<StepSpan> step_spans(const std::vector<Event>& events, const Segmentation& segmentation,
                                     const TimeSpans& gpu_windows = {});

struct GpuStepTime {
  StepSpan span;
  uint64_t busy_ns = 0;                           // union of every kernel, copy and memset inside the span
  uint64_t idle_ns = 0;                           // span length - busy_ns
  uint64_t kernel_ns = 0;                         // union of kernels only
  uint64_t copy_ns = 0;                           // union of copies only
  uint64_t memset_ns = 0;                         // union of memsets only
  uint32_t kernels = 0, copies = 0, memsets = 0;  // records starting in the span
  double busy_fraction() const {
    const uint64_t length = span.end_ns - span.start_ns;
    return length == 0 ? 0.0 : static_cast<double>(busy_ns) / static_cast<double>(length);
  }
};

// Synchronisation records (host waits) and API records are not GPU work and
// are ignored; work on every device and stream counts once (a union).
std::vector<GpuStepTime> gpu_time_per_step(const std::vector<GpuActivity>& activity,
                                           const std::vector<StepSpan>& spans);

struct GpuPhaseTime {
  int16_t phase_index = -1;
  uint64_t steps = 0;
  uint64_t busy_ns = 0, idle_ns = 0;
  double median_busy_fraction = 0;
};
// Per phase, in phase order (phases without steps are left out).
std::vector<GpuPhaseTime> gpu_time_per_phase(const std::vector<GpuStepTime>& steps);

}  // namespace syncscope
