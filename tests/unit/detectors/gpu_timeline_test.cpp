// GPU busy and idle time per step (detectors/gpu_timeline.h) on synthetic
// activity and segmentations.
#include "detectors/gpu_timeline.h"

#include <gtest/gtest.h>

#include "trace/gpu_record.h"

namespace syncscope::testing {
namespace {

GpuActivity work(GpuKind kind, uint64_t start, uint64_t end) {
  GpuActivity a;
  static_cast<GpuRecord&>(a) = GpuRecord{};
  a.kind = static_cast<uint8_t>(kind);
  a.start_ns = start;
  a.end_ns = end;
  return a;
}

StepSpan window(uint32_t step, uint64_t start, uint64_t end, int16_t phase = 0) {
  StepSpan w;
  w.phase_index = phase;
  w.step = step;
  w.start_ns = start;
  w.end_ns = end;
  return w;
}

TEST(GpuTimelineSteps, BusyIsTheUnionOfWorkInsideEachStep) {
  std::vector<GpuActivity> activity = {
      work(GpuKind::kKernel, 100, 300),    work(GpuKind::kKernel, 200, 400),  // overlap: 300 of kernels
      work(GpuKind::kMemcpy, 350, 500),                                       // busy 100..500 = 400
      work(GpuKind::kMemset, 900, 1100),                                      // 100 in each step
      work(GpuKind::kSync, 0, 2000),                                          // a host wait: not GPU work
      work(GpuKind::kRuntimeApi, 0, 2000),
  };
  auto steps = gpu_time_per_step(activity, {window(0, 0, 1000), window(1, 1000, 2000)});
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].busy_ns, 500u);
  EXPECT_EQ(steps[0].idle_ns, 500u);
  EXPECT_EQ(steps[0].kernel_ns, 300u);
  EXPECT_EQ(steps[0].copy_ns, 150u);
  EXPECT_EQ(steps[0].memset_ns, 100u);
  EXPECT_EQ(steps[0].kernels, 2u);
  EXPECT_EQ(steps[0].copies, 1u);
  EXPECT_EQ(steps[0].memsets, 1u);
  EXPECT_DOUBLE_EQ(steps[0].busy_fraction(), 0.5);
  EXPECT_EQ(steps[1].busy_ns, 100u);
  EXPECT_EQ(steps[1].idle_ns, 900u);
  EXPECT_EQ(steps[1].memsets, 0u);  // it started in step 0
}

TEST(GpuTimelineSteps, LongWorkStartedEarlierStillCounts) {
  // A long kernel started before a short one that ends before the window.
  std::vector<GpuActivity> activity = {work(GpuKind::kKernel, 0, 1500), work(GpuKind::kKernel, 10, 20)};
  auto steps = gpu_time_per_step(activity, {window(0, 1000, 2000)});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].busy_ns, 500u);
  EXPECT_EQ(steps[0].kernels, 0u);
}

TEST(GpuTimelineSteps, NoActivityMeansAllIdle) {
  auto steps = gpu_time_per_step({}, {window(0, 0, 1000)});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].busy_ns, 0u);
  EXPECT_EQ(steps[0].idle_ns, 1000u);
}

TEST(GpuTimelineSteps, WindowsFollowTheSegmentation) {
  std::vector<Event> events(7);
  Segmentation seg;
  seg.phases.resize(1);
  seg.phases[0].end_ns = 700;
  seg.places.resize(events.size());
  // A warm-up call, then steps 0, 0, 1, 1, 2, 2 of phase 0, 100 ns apart.
  for (size_t i = 0; i < events.size(); ++i) {
    events[i].start_ns = 50 + i * 100;
    events[i].end_ns = events[i].start_ns + 10;
    if (i == 0) continue;
    seg.places[i].phase = Phase::kSteady;
    seg.places[i].phase_index = 0;
    seg.places[i].step = static_cast<uint32_t>((i - 1) / 2);
  }
  seg.base = events.data();
  auto windows = step_spans(events, seg);
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_EQ(windows[0].start_ns, 150u);
  EXPECT_EQ(windows[0].end_ns, 350u);
  EXPECT_EQ(windows[1].start_ns, 350u);
  EXPECT_EQ(windows[1].end_ns, 550u);
  EXPECT_EQ(windows[2].start_ns, 550u);
  EXPECT_EQ(windows[2].end_ns, 700u);  // the phase's end

  auto steps = gpu_time_per_step({work(GpuKind::kKernel, 150, 250), work(GpuKind::kKernel, 400, 550)}, windows);
  auto phases = gpu_time_per_phase(steps);
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_EQ(phases[0].steps, 3u);
  EXPECT_EQ(phases[0].busy_ns, 250u);
  EXPECT_EQ(phases[0].idle_ns, 550u - 250u);
  EXPECT_DOUBLE_EQ(phases[0].median_busy_fraction, 0.5);  // fractions 0.5, 0.75, 0
}

}  // namespace
}  // namespace syncscope::testing
