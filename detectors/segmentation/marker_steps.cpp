#include "detectors/segmentation/marker_steps.h"

#include <unordered_map>

#include "detectors/segmentation/call_tokens.h"

namespace syncscope::segmentation {
namespace {

// With --warmup-steps 0 the first step starts with the run and holds all of
// its set-up: a loop needs this many markers even then.
constexpr size_t kMinMarkers = 3;

// Positions of the markers of the site that left the most (on a tie, the one
// that left the first); empty when there is none.
std::vector<size_t> busiest_marker_site(const std::vector<Event>& events) {
  std::unordered_map<uint32_t, std::vector<size_t>> by_site;
  for (size_t i = 0; i < events.size(); ++i) {
    if (is_api(events[i], ApiId::syncscope_optimizer_step)) by_site[events[i].stack_id].push_back(i);
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
    while (next_event < events.size() && events[next_event].start_ns < end)
      count += is_pattern_call(events[next_event++]);
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
  const std::vector<size_t> markers = busiest_marker_site(events);
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

}  // namespace syncscope::segmentation
