#include "segmentation/event_places.h"

#include <algorithm>

namespace syncscope::segmentation {
namespace {

constexpr double kNsPerSecond = 1e9;

// A further phase's stretch of the run.
struct Stretch {
  uint64_t begin, end;
  int16_t phase;
};

// The stretches of every phase but the main one, by start time.
std::vector<Stretch> further_stretches(const std::vector<PhaseSteps>& phases) {
  std::vector<Stretch> stretches;
  for (size_t p = 1; p < phases.size(); ++p) {
    for (const auto& [b, e] : phases[p].spans) stretches.push_back({b, e, static_cast<int16_t>(p)});
  }
  std::sort(stretches.begin(), stretches.end(), [](const Stretch& a, const Stretch& b) { return a.begin < b.begin; });
  return stretches;
}

}  // namespace

void place_by_time(const std::vector<Event>& events, const StepOptions& options, Segmentation* seg) {
  const uint64_t begin = events.front().start_ns;
  double warmup_ns = options.warmup_seconds >= 0 ? options.warmup_seconds * kNsPerSecond
                                                 : kDefaultWarmupShare * static_cast<double>(seg->main.end_ns - begin);
  seg->main.steady_start_ns = begin + static_cast<uint64_t>(warmup_ns);
  seg->main.steady_end_ns = seg->main.end_ns + 1;
  for (size_t i = 0; i < events.size(); ++i) {
    seg->places[i].phase = events[i].start_ns < seg->main.steady_start_ns ? Phase::kWarmup : Phase::kSteady;
  }
}

void place_in_phases(const std::vector<Event>& events, const std::vector<PhaseSteps>& phases, Segmentation* seg) {
  const std::vector<Stretch> stretches = further_stretches(phases);
  const uint64_t main_begin = phases[0].steps.starts.front();
  const uint64_t main_end = phases[0].steps.ends.back();
  size_t s = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const uint64_t t = events[i].start_ns;
    EventPlace& place = seg->places[i];
    while (s < stretches.size() && stretches[s].end <= t) ++s;
    if (s < stretches.size() && t >= stretches[s].begin) {
      const PhaseSteps& phase = phases[stretches[s].phase];
      place = {Phase::kSteady, stretches[s].phase, t >= phase.steps.starts.front() ? phase.steps.at(t) : 0};
    } else if (t >= main_begin && t < main_end) {
      place = {Phase::kSteady, 0, phases[0].steps.at(t)};
    } else {
      place.phase = t < main_begin ? Phase::kWarmup : Phase::kTeardown;
    }
  }
}

}  // namespace syncscope::segmentation
