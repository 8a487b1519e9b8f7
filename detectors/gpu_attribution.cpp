#include "detectors/gpu_attribution.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "detectors/intervals.h"
#include "trace/api.h"
#include "trace/gpu_join.h"
#include "trace/gpu_record.h"

namespace syncscope {

const char* gpu_idle_cause_name(GpuIdleCause cause) {
  switch (cause) {
    case GpuIdleCause::kSync:
      return "sync";
    case GpuIdleCause::kPageableCopy:
      return "pageable-copy";
    case GpuIdleCause::kFree:
      return "free";
    case GpuIdleCause::kLaunching:
      return "launching";
    case GpuIdleCause::kOtherCall:
      return "other-call";
    case GpuIdleCause::kNoCall:
      return "no-call";
  }
  return "unknown";
}

namespace {

// What the GPU idled for while the host was inside this call.
GpuIdleCause call_cause(const Event& e) {
  const bool async = e.flags & kFlagAsync;
  switch (api_family(e.api)) {
    case ApiFamily::kCopy:
      if (e.host_mem == static_cast<uint8_t>(HostMem::kPageable)) return GpuIdleCause::kPageableCopy;
      return async ? GpuIdleCause::kLaunching : GpuIdleCause::kSync;
    case ApiFamily::kMemset:
      return async ? GpuIdleCause::kLaunching : GpuIdleCause::kSync;
    case ApiFamily::kSync:
    case ApiFamily::kQuery:
      return GpuIdleCause::kSync;
    case ApiFamily::kFree:
      return async ? GpuIdleCause::kLaunching : GpuIdleCause::kFree;
    case ApiFamily::kHostFree:
      return GpuIdleCause::kFree;
    case ApiFamily::kLaunch:
    case ApiFamily::kGraphLaunch:
    case ApiFamily::kEventRecord:
    case ApiFamily::kStreamWait:
    case ApiFamily::kHostFunc:
      return GpuIdleCause::kLaunching;
    case ApiFamily::kAlloc:
      return async ? GpuIdleCause::kLaunching : GpuIdleCause::kOtherCall;
    default:
      return GpuIdleCause::kOtherCall;
  }
}

bool blocking(GpuIdleCause c) {
  return c == GpuIdleCause::kSync || c == GpuIdleCause::kPageableCopy || c == GpuIdleCause::kFree;
}

// Lower is stronger when several threads' calls cover the same idle piece.
int strength(GpuIdleCause c) {
  switch (c) {
    case GpuIdleCause::kSync:
      return 0;
    case GpuIdleCause::kPageableCopy:
      return 1;
    case GpuIdleCause::kFree:
      return 2;
    case GpuIdleCause::kOtherCall:
      return 3;
    case GpuIdleCause::kLaunching:
      return 4;
    case GpuIdleCause::kNoCall:
      return 5;
  }
  return 5;
}

// The calls of the issuing threads, by start.
struct HostCalls {
  std::vector<uint64_t> start, end;
  std::vector<size_t> index;  // into events
  std::vector<GpuIdleCause> cause;
  std::vector<uint64_t> max_end_before;  // [k]: latest end among the first k calls (0: none)
  std::vector<size_t> max_end_call;      // [k]: the call (index into these) that ends then
  uint64_t longest = 0;
};

HostCalls issuing_calls(const std::vector<Event>& events, const Segmentation& seg) {
  std::set<uint32_t> threads, any;
  for (size_t i = 0; i < events.size(); ++i) {
    if (!api_issues_gpu_work(events[i].api)) continue;
    any.insert(events[i].tid);
    if (i < seg.places.size() && seg.places[i].phase == Phase::kSteady) threads.insert(events[i].tid);
  }
  if (threads.empty()) threads = any;
  HostCalls calls;
  calls.max_end_before.push_back(0);
  calls.max_end_call.push_back(0);
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    if (!threads.count(e.tid) || api_family(e.api) == ApiFamily::kMarker || e.end_ns < e.start_ns) continue;
    calls.start.push_back(e.start_ns);
    calls.end.push_back(e.end_ns);
    calls.index.push_back(i);
    calls.cause.push_back(call_cause(e));
    const bool later = e.end_ns >= calls.max_end_before.back();
    calls.max_end_call.push_back(later ? calls.start.size() - 1 : calls.max_end_call.back());
    calls.max_end_before.push_back(later ? e.end_ns : calls.max_end_before.back());
    calls.longest = std::max(calls.longest, e.end_ns - e.start_ns);
  }
  return calls;
}

struct Piece {
  GpuIdleCause cause;
  int64_t event;
};

// Attributes one idle gap [g0, g1) to the host's calls; appends its pieces.
void attribute_gap(const HostCalls& calls, uint64_t g0, uint64_t g1, const StepSpan& w,
                   std::vector<GpuIdleGap>& out) {
  const auto first_from = [&](uint64_t t) {
    return static_cast<size_t>(std::lower_bound(calls.start.begin(), calls.start.end(), t) - calls.start.begin());
  };
  const size_t hi = first_from(g1);
  const size_t lo = first_from(g0 > calls.longest ? g0 - calls.longest : 0);
  std::vector<size_t> cover;  // calls overlapping the gap
  std::vector<uint64_t> cuts = {g0, g1};
  int drainer = -1;  // a blocking call holding the host when the gap opened
  for (size_t k = lo; k < hi; ++k) {
    if (calls.end[k] + kGpuJoinSlackNs < g0) continue;  // ended before the gap opened
    if (calls.start[k] <= g0 && blocking(calls.cause[k]) &&
        (drainer < 0 || strength(calls.cause[k]) < strength(calls.cause[drainer]))) {
      drainer = static_cast<int>(k);
    }
    if (calls.end[k] <= g0) continue;
    cover.push_back(k);
    if (calls.start[k] > g0) cuts.push_back(calls.start[k]);
    if (calls.end[k] < g1) cuts.push_back(calls.end[k]);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  for (size_t c = 0; c + 1 < cuts.size(); ++c) {
    const uint64_t p = cuts[c], q = cuts[c + 1];
    int best = -1;
    for (size_t k : cover) {
      if (calls.start[k] <= p && calls.end[k] >= q &&
          (best < 0 || strength(calls.cause[k]) < strength(calls.cause[best]))) {
        best = static_cast<int>(k);
      }
    }
    Piece piece{GpuIdleCause::kNoCall, -1};
    if (best >= 0) {
      piece = {calls.cause[best], static_cast<int64_t>(calls.index[best])};
    } else {
      // No call covers it: the host between calls. A short host gap between
      // two calls is the cost of issuing work; so is the wait, at the end of
      // a gap, between a launch's return and its work starting.
      const size_t next = first_from(q);
      const size_t before = first_from(p);
      const uint64_t prev_end = calls.max_end_before[before];
      const size_t prev = calls.max_end_call[before];
      // Charged to the launching call beside it, never to a sync or a free
      // that happens to follow.
      const auto launching_call = [&]() -> int64_t {
        if (prev_end != 0 && calls.cause[prev] == GpuIdleCause::kLaunching)
          return static_cast<int64_t>(calls.index[prev]);
        if (next < calls.start.size() && calls.cause[next] == GpuIdleCause::kLaunching) {
          return static_cast<int64_t>(calls.index[next]);
        }
        return -1;
      };
      if (prev_end != 0 && next < calls.start.size() && calls.start[next] - prev_end < kLaunchGapNs) {
        piece = {GpuIdleCause::kLaunching, launching_call()};
      } else if (prev_end != 0 && q == g1 && q - prev_end < kLaunchGapNs &&
                 calls.cause[prev] == GpuIdleCause::kLaunching) {
        piece = {GpuIdleCause::kLaunching, static_cast<int64_t>(calls.index[prev])};
      }
    }
    // A gap that opened while a blocking call held the host is that call's
    // until the GPU runs again, whatever the host does after it returns
    // (Python, launching): the queue ran dry because the host waited instead
    // of queueing ahead. Only another blocking call keeps its own pieces.
    if (drainer >= 0 && !blocking(piece.cause)) {
      piece = {calls.cause[drainer], static_cast<int64_t>(calls.index[drainer])};
    }
    if (!out.empty() && out.back().end_ns == p && out.back().cause == piece.cause &&
        out.back().event_index == piece.event && out.back().step == w.step && out.back().phase_index == w.phase_index) {
      out.back().end_ns = q;
      continue;
    }
    GpuIdleGap gap;
    gap.start_ns = p;
    gap.end_ns = q;
    gap.cause = piece.cause;
    gap.event_index = piece.event;
    gap.phase_index = w.phase_index;
    gap.step = w.step;
    out.push_back(gap);
  }
}

uint64_t stream_key(const GpuActivity& a) {
  if (a.stream != GpuActivity::kNoStream) return a.stream;
  return (uint64_t{1} << 63) | (static_cast<uint64_t>(a.context_id) << 32) | a.stream_id;
}

}  // namespace

std::vector<std::pair<GpuIdleCause, double>> idle_causes_by_share(const GpuPhaseFigures& figures) {
  std::vector<std::pair<GpuIdleCause, double>> causes;
  for (size_t c = 0; c < kGpuIdleCauses; ++c) {
    const GpuIdleCause cause = static_cast<GpuIdleCause>(c);
    const double share = figures.share(cause);
    if (share >= 0.005) causes.emplace_back(cause, share);
  }
  std::stable_sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return causes;
}

bool has_gpu_work(const std::vector<GpuActivity>& activity) {
  return std::any_of(activity.begin(), activity.end(), [](const GpuActivity& a) { return gpu_kind_is_work(a.kind); });
}

GpuAttribution attribute_gpu_time(const std::vector<Event>& events, const Segmentation& segmentation,
                                  const std::vector<GpuActivity>& activity, const TimeSpans& gpu_windows) {
  return attribute_gpu_time(events, segmentation, activity, step_spans(events, segmentation, gpu_windows));
}

GpuAttribution attribute_gpu_time(const std::vector<Event>& events, const Segmentation& segmentation,
                                  const std::vector<GpuActivity>& activity, const std::vector<StepSpan>& steps) {
  GpuAttribution out;
  out.per_event.resize(events.size());
  std::vector<Interval> work;
  std::map<uint64_t, std::vector<Interval>> kernels_by_stream;
  for (const GpuActivity& a : activity) {
    if (!gpu_kind_is_work(a.kind) || a.end_ns <= a.start_ns) continue;
    work.emplace_back(a.start_ns, a.end_ns);
    if (a.kind == static_cast<uint8_t>(GpuKind::kKernel))
      kernels_by_stream[stream_key(a)].emplace_back(a.start_ns, a.end_ns);
  }
  const std::vector<Interval> busy = merged(std::move(work));

  // Idle pieces of every steady step.
  const HostCalls calls = issuing_calls(events, segmentation);
  std::map<int16_t, GpuPhaseFigures> phases;
  std::set<std::pair<int16_t, uint32_t>> untimed;  // (phase, step) outside every sampling window
  for (const StepSpan& w : steps) {
    GpuPhaseFigures& phase = phases[w.phase_index];
    phase.phase_index = w.phase_index;
    if (!w.gpu_timed) {
      ++phase.untimed_steps;
      untimed.emplace(w.phase_index, w.step);
      continue;
    }
    ++phase.steps;
    phase.span_ns += w.end_ns - w.start_ns;
    const uint64_t busy_ns = union_within(busy, w.start_ns, w.end_ns);
    phase.busy_ns += busy_ns;
    phase.idle_ns += (w.end_ns - w.start_ns) - busy_ns;
    // The complement of the busy union inside the window.
    auto it = std::lower_bound(busy.begin(), busy.end(), w.start_ns,
                               [](const Interval& a, uint64_t t) { return a.second <= t; });
    uint64_t cursor = w.start_ns;
    const size_t first_gap = out.gaps.size();
    for (; cursor < w.end_ns; ++it) {
      const uint64_t until = it != busy.end() ? std::min(std::max(it->first, cursor), w.end_ns) : w.end_ns;
      if (until > cursor) attribute_gap(calls, cursor, until, w, out.gaps);
      if (it == busy.end()) break;
      cursor = std::max(cursor, it->second);
    }
    for (size_t g = first_gap; g < out.gaps.size(); ++g) {
      const GpuIdleGap& gap = out.gaps[g];
      const uint64_t ns = gap.end_ns - gap.start_ns;
      phase.idle_by_cause[static_cast<size_t>(gap.cause)] += ns;
      if (gap.event_index >= 0) out.per_event[static_cast<size_t>(gap.event_index)].idle_ns += ns;
    }
  }
  for (auto& [index, phase] : phases) {
    const uint64_t launching = phase.idle_by_cause[static_cast<size_t>(GpuIdleCause::kLaunching)];
    phase.launch_bound =
        launching * 2 > phase.idle_ns &&
        static_cast<double>(phase.idle_ns) >= kLaunchBoundMinIdleShare * static_cast<double>(phase.span_ns);
    out.phases.push_back(phase);
  }

  // Copies: how much of each ran alongside kernels on other streams.
  std::map<uint64_t, std::vector<Interval>> others;  // copy stream -> union of kernels on every other stream
  for (const GpuActivity& a : activity) {
    if (a.kind != static_cast<uint8_t>(GpuKind::kMemcpy) || a.event_index < 0 || a.end_ns <= a.start_ns) continue;
    if (static_cast<size_t>(a.event_index) >= events.size()) continue;
    // A copy in a step only partly inside a sampling window: its step has
    // no figures, so neither does it (per-step costs divide by timed steps).
    if (!untimed.empty() && static_cast<size_t>(a.event_index) < segmentation.places.size()) {
      const EventPlace& place = segmentation.places[static_cast<size_t>(a.event_index)];
      if (place.phase == Phase::kSteady && untimed.count({place.phase_index, place.step})) continue;
    }
    const uint64_t key = stream_key(a);
    auto found = others.find(key);
    if (found == others.end()) {
      std::vector<Interval> list;
      for (const auto& [stream, kernels] : kernels_by_stream) {
        if (stream != key) list.insert(list.end(), kernels.begin(), kernels.end());
      }
      found = others.emplace(key, merged(std::move(list))).first;
    }
    EventGpuCost& cost = out.per_event[static_cast<size_t>(a.event_index)];
    cost.copy_ns += a.end_ns - a.start_ns;
    cost.copy_overlap_ns += union_within(found->second, a.start_ns, a.end_ns);
  }
  return out;
}

}  // namespace syncscope
