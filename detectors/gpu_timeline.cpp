#include "detectors/gpu_timeline.h"

#include <algorithm>
#include <map>
#include <utility>

#include "detectors/intervals.h"
#include "trace/gpu_join.h"
#include "trace/gpu_record.h"

namespace syncscope {

std::vector<StepSpan> step_spans(const std::vector<Event>& events, const Segmentation& segmentation,
                                     const TimeSpans& gpu_windows) {
  // First call of each (phase, step).
  std::map<std::pair<int16_t, uint32_t>, uint64_t> first;
  for (size_t i = 0; i < events.size() && i < segmentation.places.size(); ++i) {
    const EventPlace& place = segmentation.places[i];
    if (place.phase != Phase::kSteady || place.phase_index < 0) continue;
    auto key = std::make_pair(place.phase_index, place.step);
    auto it = first.find(key);
    if (it == first.end() || events[i].start_ns < it->second) first[key] = events[i].start_ns;
  }
  std::vector<StepSpan> windows;
  for (auto it = first.begin(); it != first.end(); ++it) {
    StepSpan w;
    w.phase_index = it->first.first;
    w.step = it->first.second;
    w.start_ns = it->second;
    auto next = std::next(it);
    if (next != first.end() && next->first.first == w.phase_index) {
      w.end_ns = next->second;
    } else {
      size_t phase = static_cast<size_t>(w.phase_index);
      w.end_ns = phase < segmentation.phases.size() ? segmentation.phases[phase].end_ns : w.start_ns;
    }
    w.gpu_timed = gpu_window_covers(gpu_windows, w.start_ns, w.end_ns);
    if (w.end_ns > w.start_ns) windows.push_back(w);
  }
  return windows;
}

std::vector<GpuStepTime> gpu_time_per_step(const std::vector<GpuActivity>& activity,
                                           const std::vector<StepSpan>& windows) {
  std::vector<Interval> all, kernels, copies, memsets;
  for (const GpuActivity& a : activity) {
    if (a.end_ns <= a.start_ns) continue;
    Interval span{a.start_ns, a.end_ns};
    switch (static_cast<GpuKind>(a.kind)) {
      case GpuKind::kKernel:
        kernels.push_back(span);
        break;
      case GpuKind::kMemcpy:
        copies.push_back(span);
        break;
      case GpuKind::kMemset:
        memsets.push_back(span);
        break;
      default:
        continue;
    }
    all.push_back(span);
  }
  for (auto* list : {&all, &kernels, &copies, &memsets}) std::sort(list->begin(), list->end());
  const std::vector<Interval> busy = merged(all), kernel_union = merged(kernels), copy_union = merged(copies),
                              memset_union = merged(memsets);
  auto starts_in = [](const std::vector<Interval>& list, uint64_t lo, uint64_t hi) {
    auto a = std::lower_bound(list.begin(), list.end(), Interval{lo, 0});
    auto b = std::lower_bound(list.begin(), list.end(), Interval{hi, 0});
    return static_cast<uint32_t>(b - a);
  };
  std::vector<GpuStepTime> out;
  out.reserve(windows.size());
  for (const StepSpan& w : windows) {
    GpuStepTime t;
    t.span = w;
    t.busy_ns = union_within(busy, w.start_ns, w.end_ns);
    t.idle_ns = (w.end_ns - w.start_ns) - t.busy_ns;
    t.kernel_ns = union_within(kernel_union, w.start_ns, w.end_ns);
    t.copy_ns = union_within(copy_union, w.start_ns, w.end_ns);
    t.memset_ns = union_within(memset_union, w.start_ns, w.end_ns);
    t.kernels = starts_in(kernels, w.start_ns, w.end_ns);
    t.copies = starts_in(copies, w.start_ns, w.end_ns);
    t.memsets = starts_in(memsets, w.start_ns, w.end_ns);
    out.push_back(t);
  }
  return out;
}

std::vector<GpuPhaseTime> gpu_time_per_phase(const std::vector<GpuStepTime>& steps) {
  std::map<int16_t, std::vector<const GpuStepTime*>> by_phase;
  for (const GpuStepTime& s : steps) by_phase[s.span.phase_index].push_back(&s);
  std::vector<GpuPhaseTime> out;
  for (const auto& [phase, list] : by_phase) {
    GpuPhaseTime p;
    p.phase_index = phase;
    p.steps = list.size();
    std::vector<double> fractions;
    for (const GpuStepTime* s : list) {
      p.busy_ns += s->busy_ns;
      p.idle_ns += s->idle_ns;
      fractions.push_back(s->busy_fraction());
    }
    std::sort(fractions.begin(), fractions.end());
    size_t n = fractions.size();
    p.median_busy_fraction = n % 2 ? fractions[n / 2] : (fractions[n / 2 - 1] + fractions[n / 2]) / 2;
    out.push_back(p);
  }
  return out;
}

}  // namespace syncscope
