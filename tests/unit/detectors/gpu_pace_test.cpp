// The steps at the GPU's pace (detectors/gpu_pace.h) on synthetic launches
// and GPU activity.
#include "detectors/gpu_pace.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "trace/api.h"
#include "trace/gpu_record.h"

namespace syncscope::testing {
namespace {

constexpr uint64_t kUs = 1000;

// `steps` steps of one launch each, `host` apart on the host; each launch's
// kernel runs `kernel` on one stream, after the previous one.
ProcessTrace loop(uint64_t steps, uint64_t host, uint64_t kernel) {
  ProcessTrace trace;
  uint64_t gpu_free = 0;
  for (uint64_t i = 0; i < steps; ++i) {
    Event e{};
    e.api = static_cast<uint16_t>(ApiId::cuLaunchKernel);
    e.start_ns = i * host;
    e.end_ns = e.start_ns + 5 * kUs;
    e.flags = kFlagAsync;
    trace.events.push_back(e);
    GpuActivity a;
    static_cast<GpuRecord&>(a) = GpuRecord{};
    a.kind = static_cast<uint8_t>(GpuKind::kKernel);
    a.start_ns = std::max(gpu_free, e.end_ns);
    a.end_ns = a.start_ns + kernel;
    a.event_index = static_cast<int64_t>(i);
    gpu_free = a.end_ns;
    trace.gpu_activity.push_back(a);
  }
  return trace;
}

PhaseInfo phase_of(uint64_t steps, uint64_t host) {
  PhaseInfo p;
  p.steps = steps;
  p.start_ns = 0;
  p.end_ns = steps * host;
  p.step_ns = static_cast<double>(host);
  return p;
}

TEST(GpuPace, AHostRunningAheadGetsTheGpusPace) {
  // 100 µs of host a step, 150 µs of GPU: the queue grows 50 µs a step.
  const ProcessTrace trace = loop(10, 100 * kUs, 150 * kUs);
  EXPECT_EQ(gpu_backlog_at(trace, 0), 0u) << "nothing queued before the first launch";
  EXPECT_EQ(gpu_backlog_at(trace, 1000 * kUs), 505 * kUs) << "ten kernels from 5 µs on, at 1 ms";
  std::vector<PhaseInfo> phases{phase_of(10, 100 * kUs)};
  set_gpu_paced_steps(trace, &phases);
  EXPECT_NEAR(phases[0].gpu_paced_step_ns, 150.5 * kUs, 1);
  EXPECT_GT(phases[0].gpu_paced_step_ns, kGpuPaceWorthSaying * phases[0].step_ns);
}

TEST(GpuPace, AGpuThatKeepsUpLeavesTheHostsStep) {
  const ProcessTrace trace = loop(10, 100 * kUs, 40 * kUs);
  std::vector<PhaseInfo> phases{phase_of(10, 100 * kUs)};
  set_gpu_paced_steps(trace, &phases);
  EXPECT_NEAR(phases[0].gpu_paced_step_ns, 100 * kUs, 1);
}

TEST(GpuPace, NotKnownFromASampledTimelineOrNone) {
  ProcessTrace sampled = loop(10, 100 * kUs, 150 * kUs);
  sampled.gpu_windows.push_back({0, 300 * kUs});
  std::vector<PhaseInfo> phases{phase_of(10, 100 * kUs)};
  set_gpu_paced_steps(sampled, &phases);
  EXPECT_EQ(phases[0].gpu_paced_step_ns, 0);
  ProcessTrace none = loop(10, 100 * kUs, 150 * kUs);
  none.gpu_activity.clear();
  set_gpu_paced_steps(none, &phases);
  EXPECT_EQ(phases[0].gpu_paced_step_ns, 0);
}

}  // namespace
}  // namespace syncscope::testing
