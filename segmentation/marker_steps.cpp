#include "segmentation/marker_steps.h"

#include <map>
#include <unordered_map>
#include <utility>

#include "segmentation/call_tokens.h"

namespace syncscope::segmentation {
namespace {

// With --warmup-steps 0 the first step starts with the run and holds all of
// its set-up: a loop needs this many markers even then.
constexpr size_t kMinMarkers = 3;

}  // namespace

std::vector<size_t> busiest_marker_site(const std::vector<Event>& events, ApiId marker) {
  std::unordered_map<uint32_t, std::vector<size_t>> by_site;
  for (size_t i = 0; i < events.size(); ++i) {
    if (is_api(events[i], marker)) by_site[events[i].stack_id].push_back(i);
  }
  const std::vector<size_t>* markers = nullptr;
  for (const auto& [site, list] : by_site) {
    if (markers == nullptr || list.size() > markers->size() ||
        (list.size() == markers->size() && list.front() < markers->front())) {
      markers = &list;
    }
  }
  return markers == nullptr ? std::vector<size_t>{} : *markers;
}

namespace {

// Step k ends with marker k and starts right after marker k-1 (the first
// with the run); the first `warmup` steps are warm-up. The phase's calls per
// step is the median count of pattern calls in a steady step.
void add_marker_steps(const std::vector<Event>& events, const std::vector<size_t>& markers, size_t warmup,
                      PhaseSteps* out) {
  std::vector<double> calls;
  size_t next_event = 0;
  for (size_t k = 0; k < markers.size(); ++k) {
    uint64_t end = events[markers[k]].end_ns + 1;
    size_t count = 0;
    for (; next_event < events.size() && events[next_event].start_ns < end; ++next_event)
      count += is_pattern_call(events[next_event]) ? calls_of(events[next_event]) : 0;
    if (k < warmup) continue;
    uint64_t start = k == 0 ? events.front().start_ns : events[markers[k - 1]].end_ns + 1;
    out->steps.add(start, end);
    calls.push_back(static_cast<double>(count));
  }
  out->info.calls_per_step = static_cast<uint32_t>(median(calls));
}

}  // namespace

bool steps_from_markers(const std::vector<Event>& events, const StepOptions& options, PhaseSteps* out,
                        uint32_t* main_tid) {
  const std::vector<size_t> markers = busiest_marker_site(events, ApiId::syncscope_optimizer_step);
  const size_t warmup = warmup_steps(options, kOptimizerWarmupSteps);
  if (markers.size() < warmup + kMinSteadySteps || markers.size() < kMinMarkers) return false;
  const Event& first = events[markers.front()];
  *main_tid = first.tid;
  out->info.name = "train";
  out->info.source = StepSource::kOptimizerStep;
  out->info.marker_stack_id = first.stack_id;
  add_marker_steps(events, markers, warmup, out);
  return true;
}

bool steps_from_nvtx_ranges(const std::vector<Event>& events, const StepOptions& options, PhaseSteps* out,
                            uint32_t* main_tid) {
  std::map<std::pair<uint32_t, uint64_t>, std::vector<size_t>> by_name;  // (tid, name id) -> outermost ranges
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    if (is_api(e, ApiId::syncscope_nvtx_range) && e.bytes == 0) by_name[{e.tid, e.dst}].push_back(i);
  }
  const std::vector<size_t>* ranges = nullptr;
  for (const auto& [key, list] : by_name) {
    if (ranges == nullptr || list.size() > ranges->size()) ranges = &list;
  }
  const size_t warmup = warmup_steps(options, kOptimizerWarmupSteps);
  if (ranges == nullptr || ranges->size() < warmup + kMinSteadySteps || ranges->size() < kMinMarkers) return false;
  const Event& first = events[ranges->front()];
  // Ranges around a loop hold its work: at least half the thread's calls
  // from the first range's start on fall inside one.
  size_t inside = 0, all = 0, r = 0;
  for (const Event& e : events) {
    if (e.tid != first.tid || !is_pattern_call(e) || e.start_ns < first.start_ns) continue;
    while (r < ranges->size() && events[(*ranges)[r]].end_ns < e.start_ns) ++r;
    all += calls_of(e);
    inside += r < ranges->size() && events[(*ranges)[r]].start_ns <= e.start_ns ? calls_of(e) : 0;
  }
  if (all == 0 || 2 * inside < all) return false;
  *main_tid = first.tid;
  out->info.source = StepSource::kNvtxRange;
  out->info.nvtx_name_id = static_cast<uint32_t>(first.dst);
  out->info.name = "nvtx";  // the range's name, once the analysis has the trace's strings
  std::vector<double> calls;
  size_t next_event = 0;
  for (size_t k = 0; k < ranges->size(); ++k) {
    const uint64_t start = events[(*ranges)[k]].start_ns;
    const uint64_t end = k + 1 < ranges->size() ? events[(*ranges)[k + 1]].start_ns : events[(*ranges)[k]].end_ns + 1;
    while (next_event < events.size() && events[next_event].start_ns < start) ++next_event;
    size_t count = 0;
    for (size_t j = next_event; j < events.size() && events[j].start_ns < end; ++j) {
      count += events[j].tid == first.tid && is_pattern_call(events[j]) ? calls_of(events[j]) : 0;
    }
    if (k < warmup) continue;
    out->steps.add(start, end);
    calls.push_back(static_cast<double>(count));
  }
  out->info.calls_per_step = static_cast<uint32_t>(median(calls));
  return true;
}

}  // namespace syncscope::segmentation
