// GPU idle attributed to the host, copy overlap, and what they do to the
// findings (detectors/gpu_attribution.h) on synthetic events and activity.
#include "detectors/gpu_attribution.h"

#include <gtest/gtest.h>

#include <optional>

#include "detectors/analysis.h"
#include "detectors/detectors.h"
#include "tests/unit/detectors/steps_by_time.h"
#include "trace/api.h"
#include "trace/gpu_record.h"

namespace syncscope::testing {
namespace {

constexpr uint64_t kUs = 1000;
constexpr uint64_t kStep = 1000 * kUs;
constexpr uint64_t kBase = 1000000000;  // first step's start

struct Program {
  std::vector<Event> events;
  std::vector<GpuActivity> activity;

  Event& call(ApiId api, uint64_t start, uint64_t end, uint64_t stream = 0x100, uint32_t stack = 0) {
    Event e{};
    e.api = static_cast<uint16_t>(api);
    e.start_ns = start;
    e.end_ns = end;
    e.stream = stream;
    e.stack_id = stack;
    e.tid = 1;
    e.device = 0;
    ApiFamily f = api_family(e.api);
    if (f == ApiFamily::kLaunch) e.flags |= kFlagAsync;
    events.push_back(e);
    return events.back();
  }
  // GPU work caused by the last call.
  void work(GpuKind kind, uint64_t start, uint64_t end, uint64_t stream = 0x100) {
    GpuActivity a;
    static_cast<GpuRecord&>(a) = GpuRecord{};
    a.kind = static_cast<uint8_t>(kind);
    a.start_ns = start;
    a.end_ns = end;
    a.event_index = static_cast<int64_t>(events.size()) - 1;
    a.stream = stream;
    activity.push_back(a);
  }
  // Sorted as the reader leaves them; event_index kept right.
  void finish() {
    std::vector<size_t> order(events.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return events[a].start_ns < events[b].start_ns; });
    std::vector<Event> sorted;
    std::vector<int64_t> where(events.size());
    for (size_t i = 0; i < order.size(); ++i) {
      sorted.push_back(events[order[i]]);
      where[order[i]] = static_cast<int64_t>(i);
    }
    events = sorted;
    for (GpuActivity& a : activity) a.event_index = where[a.event_index];
    std::stable_sort(activity.begin(), activity.end(),
                     [](const GpuActivity& a, const GpuActivity& b) { return a.start_ns < b.start_ns; });
  }
};

Segmentation steps_of(const Program& p, uint64_t steps) {
  StepInfo info;
  info.detected = true;
  info.steps = steps;
  info.steady_start_ns = kBase;
  info.steady_end_ns = kBase + steps * kStep;
  info.step_ns = static_cast<double>(kStep);
  return segmentation_from_steps(p.events, info);
}

uint64_t per_step(const GpuPhaseFigures& f, GpuIdleCause c) {
  return f.idle_by_cause[static_cast<size_t>(c)] / f.steps;
}

// A copy: the detectors' results are temporaries at every call (a pointer
// into one dangled: ASan, scripts/sanitize.sh address).
std::optional<Finding> find(const std::vector<Finding>& fs, const std::string& cause) {
  for (const Finding& f : fs) {
    if (cause_name(f.cause) == cause && f.phase == Phase::kSteady) return f;
  }
  return std::nullopt;
}

// Each step: launch, a read-back sync that returns 10 us after the kernel,
// 490 us of Python, a second launch, 100 us more of host work.
Program sync_then_python(int steps) {
  Program p;
  for (int k = 0; k < steps; ++k) {
    const uint64_t t = kBase + k * kStep;
    p.call(ApiId::__cudaLaunchKernel, t, t + 5 * kUs);
    p.work(GpuKind::kKernel, t + 10 * kUs, t + 300 * kUs);
    p.call(ApiId::cudaStreamSynchronize, t + 6 * kUs, t + 310 * kUs, 0x100, 7);
    p.call(ApiId::__cudaLaunchKernel, t + 800 * kUs, t + 805 * kUs);
    p.work(GpuKind::kKernel, t + 810 * kUs, t + 900 * kUs);
  }
  p.finish();
  return p;
}

TEST(GpuIdle, SyncThenPythonThenLaunch) {
  Program p = sync_then_python(10);
  Segmentation seg = steps_of(p, 10);
  GpuAttribution a = attribute_gpu_time(p.events, seg, p.activity);
  ASSERT_EQ(a.phases.size(), 1u);
  const GpuPhaseFigures& f = a.phases[0];
  EXPECT_EQ(f.steps, 10u);
  EXPECT_EQ(f.busy_ns / 10, 380 * kUs);
  EXPECT_EQ(f.idle_ns / 10, 620 * kUs);
  // In the sync 4 us before the kernel started and 10 us after it ended; the
  // refill (490 us of Python, the next launch and its latency) is the sync's
  // too: the GPU went idle while the host waited.
  EXPECT_EQ(per_step(f, GpuIdleCause::kSync), 514 * kUs);
  EXPECT_EQ(per_step(f, GpuIdleCause::kLaunching), 6 * kUs);  // the first launch and the gap after it
  EXPECT_EQ(per_step(f, GpuIdleCause::kNoCall), 100 * kUs);   // at the step's end, in a gap no sync opened
  EXPECT_FALSE(f.launch_bound);
  EXPECT_NEAR(f.busy_share(), 0.38, 1e-9);

  // The sync's finding carries the GPU idle it caused.
  seg.gpu_cost = a.per_event;
  std::optional<Finding> sync = find(detect_hidden_syncs(p.events, seg), "explicit");
  ASSERT_TRUE(sync.has_value());
  EXPECT_TRUE(sync->gpu_measured);
  EXPECT_DOUBLE_EQ(sync->gpu_idle_ns_per_step, 514.0 * kUs);
  EXPECT_NEAR(sync->gpu_idle_share, 0.514, 1e-9);
}

TEST(GpuIdle, InsideAPageableCopy) {
  Program p;
  for (int k = 0; k < 5; ++k) {
    const uint64_t t = kBase + k * kStep;
    p.call(ApiId::__cudaLaunchKernel, t, t + 5 * kUs);
    p.work(GpuKind::kKernel, t + 6 * kUs, t + 400 * kUs);
    // Staged through a pinned buffer: two chunks on the GPU, the host copying in between.
    Event& copy = p.call(ApiId::cudaMemcpy, t + 400 * kUs, t + 700 * kUs, 0, 9);
    copy.direction = static_cast<uint8_t>(Direction::kHostToDevice);
    copy.host_mem = static_cast<uint8_t>(HostMem::kPageable);
    copy.bytes = 1 << 20;
    p.work(GpuKind::kMemcpy, t + 500 * kUs, t + 550 * kUs, 0);
    p.work(GpuKind::kMemcpy, t + 650 * kUs, t + 700 * kUs, 0);
    p.call(ApiId::__cudaLaunchKernel, t + 705 * kUs, t + 710 * kUs);
    p.work(GpuKind::kKernel, t + 712 * kUs, t + 1000 * kUs);
  }
  p.finish();
  Segmentation seg = steps_of(p, 5);
  GpuAttribution a = attribute_gpu_time(p.events, seg, p.activity);
  ASSERT_EQ(a.phases.size(), 1u);
  const GpuPhaseFigures& f = a.phases[0];
  // 100 + 100 us inside the copy; after it returns, the refill (705..712) is its too.
  EXPECT_EQ(per_step(f, GpuIdleCause::kPageableCopy), 212 * kUs);
  EXPECT_EQ(per_step(f, GpuIdleCause::kSync), 0u);
  seg.gpu_cost = a.per_event;
  std::optional<Finding> copy = find(detect_pageable_copies(p.events, seg), "synchronous");
  ASSERT_TRUE(copy.has_value());
  EXPECT_DOUBLE_EQ(copy->gpu_idle_ns_per_step, 212.0 * kUs);
}

TEST(GpuIdle, InsideADeviceWideFree) {
  Program p;
  for (int k = 0; k < 5; ++k) {
    const uint64_t t = kBase + k * kStep;
    p.call(ApiId::__cudaLaunchKernel, t, t + 5 * kUs);
    p.work(GpuKind::kKernel, t + 6 * kUs, t + 600 * kUs);
    p.call(ApiId::cudaFree, t + 10 * kUs, t + 900 * kUs, 0, 5);
    p.call(ApiId::__cudaLaunchKernel, t + 905 * kUs, t + 910 * kUs);
    p.work(GpuKind::kKernel, t + 912 * kUs, t + 1000 * kUs);
  }
  p.finish();
  Segmentation seg = steps_of(p, 5);
  GpuAttribution a = attribute_gpu_time(p.events, seg, p.activity);
  const GpuPhaseFigures& f = a.phases.at(0);
  EXPECT_EQ(per_step(f, GpuIdleCause::kFree), 312 * kUs);  // 600..900, then the refill to 912
  seg.gpu_cost = a.per_event;
  std::optional<Finding> free = find(detect_hidden_syncs(p.events, seg), "implicit-free");
  ASSERT_TRUE(free.has_value());
  EXPECT_DOUBLE_EQ(free->gpu_idle_ns_per_step, 312.0 * kUs);
}

TEST(GpuIdle, LaunchBoundWhenTheHostCannotKeepUp) {
  // 50 tiny kernels per step, each 4 us on the GPU, issued every 20 us.
  Program p;
  for (int k = 0; k < 5; ++k) {
    for (int i = 0; i < 50; ++i) {
      const uint64_t t = kBase + k * kStep + i * 20 * kUs;
      p.call(ApiId::__cudaLaunchKernel, t, t + 8 * kUs);
      p.work(GpuKind::kKernel, t + 10 * kUs, t + 14 * kUs);
    }
  }
  p.finish();
  GpuAttribution a = attribute_gpu_time(p.events, steps_of(p, 5), p.activity);
  const GpuPhaseFigures& f = a.phases.at(0);
  EXPECT_NEAR(f.busy_share(), 0.2, 1e-9);
  EXPECT_TRUE(f.launch_bound);
  EXPECT_EQ(per_step(f, GpuIdleCause::kLaunching), 800 * kUs);  // every gap
  EXPECT_EQ(per_step(f, GpuIdleCause::kNoCall), 0u);
}

TEST(GpuIdle, NotLaunchBoundWhenTheGpuIsBusy) {
  Program p;
  for (int k = 0; k < 5; ++k) {
    const uint64_t t = kBase + k * kStep;
    p.call(ApiId::__cudaLaunchKernel, t, t + 8 * kUs);
    p.work(GpuKind::kKernel, t + 10 * kUs, t + 1000 * kUs);
  }
  p.finish();
  GpuAttribution a = attribute_gpu_time(p.events, steps_of(p, 5), p.activity);
  const GpuPhaseFigures& f = a.phases.at(0);
  EXPECT_EQ(per_step(f, GpuIdleCause::kLaunching), 10 * kUs);  // all idle is launching, but 1% of the step
  EXPECT_FALSE(f.launch_bound);
}

TEST(GpuIdle, OtherThreadsDoNotCount) {
  // A thread that never issues work (a logger polling) covers the gap: still Python.
  Program p = sync_then_python(4);
  for (int k = 0; k < 4; ++k) {
    const uint64_t t = kBase + k * kStep;
    Event& e = p.call(ApiId::cudaMalloc, t + 320 * kUs, t + 700 * kUs);
    e.tid = 2;
  }
  p.finish();
  GpuAttribution a = attribute_gpu_time(p.events, steps_of(p, 4), p.activity);
  EXPECT_EQ(per_step(a.phases.at(0), GpuIdleCause::kNoCall), 100 * kUs);
  EXPECT_EQ(per_step(a.phases.at(0), GpuIdleCause::kSync), 514 * kUs);
  EXPECT_EQ(per_step(a.phases.at(0), GpuIdleCause::kOtherCall), 0u);
}

// Each step: an async H2D copy of 300 us, then a kernel of 400 us.
Program upload_then_compute(uint64_t copy_stream, bool overlapped) {
  Program p;
  for (int k = 0; k < 10; ++k) {
    const uint64_t t = kBase + k * kStep;
    if (!overlapped) {
      Event& c = p.call(ApiId::cudaMemcpyAsync, t, t + 5 * kUs, copy_stream, 13);
      c.direction = static_cast<uint8_t>(Direction::kHostToDevice);
      c.host_mem = static_cast<uint8_t>(HostMem::kPinned);
      c.flags |= kFlagAsync;
      c.bytes = 4 << 20;
      p.work(GpuKind::kMemcpy, t + 10 * kUs, t + 310 * kUs, copy_stream);
      p.call(ApiId::__cudaLaunchKernel, t + 6 * kUs, t + 9 * kUs, 0x100);
      p.work(GpuKind::kKernel, t + 310 * kUs, t + 710 * kUs, 0x100);
    } else {
      // The next step's batch is uploaded while this step computes.
      Event& c = p.call(ApiId::cudaMemcpyAsync, t, t + 5 * kUs, copy_stream, 13);
      c.direction = static_cast<uint8_t>(Direction::kHostToDevice);
      c.host_mem = static_cast<uint8_t>(HostMem::kPinned);
      c.flags |= kFlagAsync;
      c.bytes = 4 << 20;
      p.work(GpuKind::kMemcpy, t + 20 * kUs, t + 320 * kUs, copy_stream);
      p.call(ApiId::cudaEventRecord, t + 6 * kUs, t + 7 * kUs, copy_stream);
      p.call(ApiId::__cudaLaunchKernel, t + 8 * kUs, t + 11 * kUs, 0x100);
      p.work(GpuKind::kKernel, t + 12 * kUs, t + 412 * kUs, 0x100);
    }
  }
  p.finish();
  return p;
}

TEST(CopyOverlap, OwnStreamOverlapsComputeStreamDoesNot) {
  Program own = upload_then_compute(0x300, true);
  GpuAttribution a = attribute_gpu_time(own.events, steps_of(own, 10), own.activity);
  uint64_t copy = 0, overlap = 0;
  for (const EventGpuCost& c : a.per_event) copy += c.copy_ns, overlap += c.copy_overlap_ns;
  EXPECT_EQ(copy, 10 * 300 * kUs);
  EXPECT_EQ(overlap, copy);  // all of it ran alongside the kernels

  Program same = upload_then_compute(0x100, false);
  Segmentation seg = steps_of(same, 10);
  GpuAttribution b = attribute_gpu_time(same.events, seg, same.activity);
  copy = overlap = 0;
  for (const EventGpuCost& c : b.per_event) copy += c.copy_ns, overlap += c.copy_overlap_ns;
  EXPECT_EQ(copy, 10 * 300 * kUs);
  EXPECT_EQ(overlap, 0u);

  // The finding's cost is the serialised copy time, which sets its severity.
  seg.gpu_cost = b.per_event;
  std::optional<Finding> f = find(detect_default_stream(same.events, seg), "copy-on-compute-stream");
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->gpu_measured);
  EXPECT_EQ(f->gpu_copy_ns, 10 * 300 * kUs);
  EXPECT_EQ(f->gpu_copy_overlap_ns, 0u);
  EXPECT_DOUBLE_EQ(f->gpu_serialized_ns_per_step, 300.0 * kUs);
  EXPECT_NEAR(f->severity, 0.3, 1e-9);
  // Without a timeline: the old estimate, far lower.
  seg.gpu_cost.clear();
  std::optional<Finding> unmeasured = find(detect_default_stream(same.events, seg), "copy-on-compute-stream");
  ASSERT_TRUE(unmeasured.has_value());
  EXPECT_FALSE(unmeasured->gpu_measured);
  EXPECT_LT(unmeasured->severity, 0.01);
}

TEST(GpuSeverity, MeasuredCostsRankTheFindings) {
  // Per step: a copy serialised on the compute stream (300 us of GPU time,
  // no host blocked) and an explicit sync blocking the host 100 us while
  // the GPU runs. With the timeline the copy ranks first; without, the sync.
  Program p;
  for (int k = 0; k < 12; ++k) {
    const uint64_t t = kBase + k * kStep;
    Event& c = p.call(ApiId::cudaMemcpyAsync, t, t + 5 * kUs, 0x100, 13);
    c.direction = static_cast<uint8_t>(Direction::kHostToDevice);
    c.host_mem = static_cast<uint8_t>(HostMem::kPinned);
    c.flags |= kFlagAsync;
    c.bytes = 4 << 20;
    p.work(GpuKind::kMemcpy, t + 10 * kUs, t + 310 * kUs);
    p.call(ApiId::__cudaLaunchKernel, t + 6 * kUs, t + 9 * kUs);
    p.work(GpuKind::kKernel, t + 310 * kUs, t + 900 * kUs);
    p.call(ApiId::cudaStreamSynchronize, t + 800 * kUs, t + 901 * kUs, 0x100, 7);
  }
  p.finish();
  ProcessTrace trace;
  trace.events = p.events;
  Analysis host_only = analyze(trace);
  ASSERT_TRUE(host_only.steps.detected);
  EXPECT_FALSE(host_only.gpu_timeline);
  EXPECT_TRUE(host_only.gpu.empty());
  ASSERT_GE(host_only.findings.size(), 2u);
  EXPECT_EQ(host_only.findings[0].category, Category::kHiddenSync);

  trace.gpu_activity = p.activity;
  Analysis timed = analyze(trace);
  EXPECT_TRUE(timed.gpu_timeline);
  ASSERT_FALSE(timed.gpu.empty());
  ASSERT_NE(timed.gpu_for_phase(0), nullptr);
  ASSERT_GE(timed.findings.size(), 2u);
  EXPECT_EQ(timed.findings[0].category, Category::kDefaultStream);
  EXPECT_STREQ(cause_name(timed.findings[0].cause), "copy-on-compute-stream");
  EXPECT_GT(timed.findings[0].severity, timed.findings[1].severity);
  for (const Finding& f : timed.findings) EXPECT_TRUE(f.gpu_measured);
}


// A sampled timeline: only the steps inside a window have figures, and a
// finding's GPU idle is per measured step, not per step of the phase.
TEST(GpuSampling, OnlyStepsInsideAWindowAreMeasured) {
  Program p = sync_then_python(10);
  // Records exist only for steps 2..4 (the window), as CUPTI would give them.
  const uint64_t open = kBase + 2 * kStep, close = kBase + 5 * kStep;
  Program sampled = p;
  sampled.activity.clear();
  for (const GpuActivity& a : p.activity) {
    if (p.events[static_cast<size_t>(a.event_index)].start_ns >= open &&
        p.events[static_cast<size_t>(a.event_index)].start_ns < close) {
      sampled.activity.push_back(a);
    }
  }
  Segmentation seg = steps_of(sampled, 10);
  const TimeSpans windows = {{open - 10 * kUs, close + 10 * kUs}};
  GpuAttribution full = attribute_gpu_time(p.events, steps_of(p, 10), p.activity);
  GpuAttribution a = attribute_gpu_time(sampled.events, seg, sampled.activity, windows);
  ASSERT_EQ(a.phases.size(), 1u);
  const GpuPhaseFigures& f = a.phases[0];
  EXPECT_EQ(f.steps, 3u);
  EXPECT_EQ(f.untimed_steps, 7u);
  // The same per-step figures as the full timeline's.
  EXPECT_NEAR(f.busy_share(), full.phases[0].busy_share(), 1e-9);
  EXPECT_EQ(per_step(f, GpuIdleCause::kSync), per_step(full.phases[0], GpuIdleCause::kSync));

  seg.gpu_cost = a.per_event;
  seg.gpu_timed_steps = {3};
  std::optional<Finding> sync = find(detect_hidden_syncs(sampled.events, seg), "explicit");
  ASSERT_TRUE(sync.has_value());
  EXPECT_TRUE(sync->gpu_measured);
  EXPECT_DOUBLE_EQ(sync->gpu_idle_ns_per_step, 514.0 * kUs) << "per measured step, not per step of the phase";

  // No step inside any window: no GPU figures for the finding.
  const TimeSpans elsewhere = {{kBase + 20 * kStep, kBase + 21 * kStep}};
  GpuAttribution none = attribute_gpu_time(sampled.events, seg, sampled.activity, elsewhere);
  ASSERT_EQ(none.phases.size(), 1u);
  EXPECT_EQ(none.phases[0].steps, 0u);
  EXPECT_EQ(none.phases[0].untimed_steps, 10u);
  seg.gpu_cost = none.per_event;
  seg.gpu_timed_steps = {0};
  sync = find(detect_hidden_syncs(sampled.events, seg), "explicit");
  ASSERT_TRUE(sync.has_value());
  EXPECT_FALSE(sync->gpu_measured);
}

}  // namespace
}  // namespace syncscope::testing
