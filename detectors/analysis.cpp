#include "detectors/analysis.h"

#include <algorithm>

#include "detectors/compilation.h"
#include "detectors/detectors.h"
#include "detectors/finding_rank.h"
#include "detectors/gpu_pace.h"
#include "segmentation/segmentation.h"
#include "segmentation/waiters.h"

namespace syncscope {
namespace {

// The steps' windows (by phase, then step) with their GPU busy time (gpu_time_per_step) and idle
// time by cause (the attribution's gaps, which carry their step); host time
// is added from the findings once they are known.
std::vector<StepFigures> step_figures(const ProcessTrace& trace, const std::vector<StepSpan>& windows,
                                      const std::vector<GpuIdleGap>* gaps) {
  std::vector<StepFigures> out(windows.size());
  for (size_t i = 0; i < windows.size(); ++i) out[i].span = windows[i];
  if (gaps == nullptr) return out;  // no GPU timeline
  const std::vector<GpuStepTime> busy = gpu_time_per_step(trace.gpu_activity, windows);
  for (size_t i = 0; i < busy.size(); ++i) out[i].gpu_busy_ns = windows[i].gpu_timed ? busy[i].busy_ns : 0;
  // Gaps come by step window, in the windows' order.
  size_t w = 0;
  for (const GpuIdleGap& gap : *gaps) {
    while (w < out.size() && (out[w].span.phase_index != gap.phase_index || out[w].span.step != gap.step)) ++w;
    if (w == out.size()) break;
    out[w].gpu_idle_by_cause[static_cast<size_t>(gap.cause)] += gap.end_ns - gap.start_ns;
  }
  return out;
}

}  // namespace

Analysis analyze(const ProcessTrace& trace, const StepOptions& options) {
  Analysis a;
  Segmentation segmentation = segment_run(trace.events, options);
  place_compilation_in_warmup(trace, &segmentation);
  attribute_to_waiters(
      trace.events,
      [&](uint32_t stack) {
        auto it = trace.python_stacks.find(stack);
        return it != trace.python_stacks.end() && !it->second.empty();
      },
      &segmentation);
  // The steps' windows, once: for the GPU attribution and the per-step figures.
  const std::vector<StepSpan> windows = step_spans(trace.events, segmentation, trace.gpu_windows);
  GpuAttribution gpu;
  if (has_gpu_work(trace.gpu_activity)) {
    gpu = attribute_gpu_time(trace.events, segmentation, trace.gpu_activity, windows);
    segmentation.gpu_cost = std::move(gpu.per_event);
    if (!trace.gpu_windows.empty()) {
      segmentation.gpu_timed_steps.assign(segmentation.phases.size(), 0);
      for (const GpuPhaseFigures& g : gpu.phases) {
        if (g.phase_index >= 0 && static_cast<size_t>(g.phase_index) < segmentation.phases.size()) {
          segmentation.gpu_timed_steps[static_cast<size_t>(g.phase_index)] = g.steps;
        }
      }
    }
    a.gpu_timeline = true;
    a.gpu = std::move(gpu.phases);
  }
  a.step_figures = step_figures(trace, windows, a.gpu_timeline ? &gpu.gaps : nullptr);
  a.steps = segmentation.main;
  a.phases = segmentation.phases;
  for (PhaseInfo& phase : a.phases) phase.name = phase_name(phase, trace.strings);
  set_gpu_paced_steps(trace, &a.phases);
  using Detector = std::vector<Finding> (*)(const std::vector<Event>&, const Segmentation&);
  for (Detector detector : {Detector{detect_hidden_syncs}, Detector{detect_pageable_copies},
                            Detector{detect_allocator_churn}, Detector{detect_default_stream}}) {
    std::vector<Finding> found = detector(trace.events, segmentation);
    a.findings.insert(a.findings.end(), found.begin(), found.end());
  }
  std::stable_sort(a.findings.begin(), a.findings.end(), ranks_before);
  add_blocked_time(&a);
  return a;
}

bool counts_as_blocked(const Finding& f) {
  return f.category == Category::kHiddenSync ||
         (f.category == Category::kPageableCopy && f.cause == Cause::kAsyncRequested);
}

void add_blocked_time(Analysis* a) {
  for (const Finding& f : a->findings) {
    if (!counts_as_blocked(f)) continue;
    if (f.phase == Phase::kSteady) a->blocked_ns_per_step += f.blocked_ns_per_step;
    if (f.phase_index < 0) continue;
    for (const FindingStepCount& s : f.step_counts) {
      auto it = std::lower_bound(a->step_figures.begin(), a->step_figures.end(), std::make_pair(f.phase_index, s.step),
                                 [](const StepFigures& x, std::pair<int, uint32_t> key) {
                                   return std::make_pair(int{x.span.phase_index}, x.span.step) < key;
                                 });
      if (it != a->step_figures.end() && it->span.phase_index == f.phase_index && it->span.step == s.step) {
        it->host_blocked_ns += s.blocked_ns;
      }
    }
  }
}

const GpuPhaseFigures* Analysis::gpu_for_phase(size_t index) const {
  for (const GpuPhaseFigures& g : gpu) {
    if (g.phase_index >= 0 && static_cast<size_t>(g.phase_index) == index) return &g;
  }
  return nullptr;
}

}  // namespace syncscope
