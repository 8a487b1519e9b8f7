// What the host was doing while the GPU idled, and how much of each copy
// overlapped kernels on other streams (issue 13, docs/gpu-timeline.md,
// "Idle attribution" and "Copy overlap"). A pure function of the events, the
// segmentation and the GPU timeline, like the detectors.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "detectors/gpu_timeline.h"
#include "segmentation/segmentation.h"
#include "trace/event.h"
#include "trace/reader.h"

namespace syncscope {

// Why the GPU had nothing to run, by what the issuing threads were doing.
enum class GpuIdleCause : uint8_t {
  kSync,          // blocked in a synchronisation (stream/device/event sync, synchronous copy or memset, query)
  kPageableCopy,  // inside a copy from or to pageable host memory
  kFree,          // inside a device-wide free (cudaFree, cudaFreeHost)
  kLaunching,     // issuing work back to back (launches, async copies, event records, and the short host gaps between
                  // them)
  kOtherCall,     // inside another CUDA call (allocation, stream creation, ...)
  kNoCall,        // in no CUDA call for longer than a launch gap: Python, data loading, logging
};
inline constexpr size_t kGpuIdleCauses = 6;
const char* gpu_idle_cause_name(
    GpuIdleCause cause);  // "sync", "pageable-copy", "free", "launching", "other-call", "no-call"

// An uncovered host stretch between two issuing calls shorter than this is
// the host's own cost of issuing work (argument packing, Python dispatch):
// launching. Longer ones are the host doing something else.
inline constexpr uint64_t kLaunchGapNs = 50000;
// A phase is launch-bound when launching is most of its GPU idle time and
// that idle time is at least this share of its steps.
inline constexpr double kLaunchBoundMinIdleShare = 0.10;

// One idle piece of a steady step: GPU idle, the host doing one thing.
struct GpuIdleGap {
  uint64_t start_ns = 0, end_ns = 0;
  GpuIdleCause cause = GpuIdleCause::kNoCall;
  int64_t event_index = -1;  // the call charged with it, -1: none (no-call)
  int16_t phase_index = -1;
  uint32_t step = 0;
};

struct GpuPhaseFigures {
  int16_t phase_index = -1;  // into Segmentation::phases
  uint64_t steps = 0;          // steps with GPU figures: inside a sampling window (all, with a full timeline)
  uint64_t untimed_steps = 0;  // steady steps outside every sampling window: no GPU figures
  uint64_t span_ns = 0;        // sum of its timed step windows
  uint64_t busy_ns = 0, idle_ns = 0;
  std::array<uint64_t, kGpuIdleCauses> idle_by_cause{};
  bool launch_bound = false;

  double busy_share() const { return span_ns ? static_cast<double>(busy_ns) / static_cast<double>(span_ns) : 0; }
  double share(GpuIdleCause c) const {
    return span_ns ? static_cast<double>(idle_by_cause[static_cast<size_t>(c)]) / static_cast<double>(span_ns) : 0;
  }
  double per_step(uint64_t ns) const { return steps ? static_cast<double>(ns) / static_cast<double>(steps) : 0; }
};

// A phase's idle causes that are at least half a percent of its steps (so
// each prints as 1% or more), largest first.
std::vector<std::pair<GpuIdleCause, double>> idle_causes_by_share(const GpuPhaseFigures& figures);

struct GpuAttribution {
  std::vector<GpuIdleGap> gaps;         // every idle piece of every steady step, by time
  std::vector<GpuPhaseFigures> phases;  // per phase with steps, in phase order
  std::vector<EventGpuCost> per_event;  // one per event
};

// Whether the timeline holds GPU work (kernels, copies, memsets).
bool has_gpu_work(const std::vector<GpuActivity>& activity);

// events sorted by start (as segmented); activity joined (event_index, stream).
//
// Issuing threads are those that launch, copy or memset in steady state. In
// each steady step, every stretch where no kernel, copy or memset ran is cut
// where the issuing threads' calls begin and end; each piece goes to the
// call covering it (several: sync, pageable copy, free, other call,
// launching, in that order), else to launching when the host gap around it
// is shorter than kLaunchGapNs, else to no call. Every piece of a gap that
// opened while a blocking call (sync, pageable copy, free) held the host is
// that call's, except those another blocking call covers: the GPU ran dry
// because the host waited instead of queueing ahead, and stays idle until
// the host, back in Python, has queued work again.
//
// Under a sampled timeline (gpu_windows not empty) only the steps inside a
// window are measured; the figures are theirs, per timed step.
GpuAttribution attribute_gpu_time(const std::vector<Event>& events, const Segmentation& segmentation,
                                  const std::vector<GpuActivity>& activity, const TimeSpans& gpu_windows = {});
// The same with the steps' spans already made (step_spans, with the
// trace's sampling windows): the analysis makes them once for this and the
// per-step figures.
GpuAttribution attribute_gpu_time(const std::vector<Event>& events, const Segmentation& segmentation,
                                  const std::vector<GpuActivity>& activity, const std::vector<StepSpan>& steps);

}  // namespace syncscope
