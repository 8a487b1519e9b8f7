// What the analysis keeps for the pictures (report/perfetto_report.h,
// report/html_report.h): each finding's occurrences (bounded) and counts per
// step, and per steady step its host blocked time and GPU busy and idle time.
#include <gtest/gtest.h>

#include <numeric>

#include "detectors/analysis.h"
#include "tests/unit/detectors/synthetic.h"
#include "trace/gpu_record.h"

namespace syncscope::testing {
namespace {

// `steps` steps of two launches and a 40 µs stream sync at stack 7.
ProcessTrace loop(int steps, bool gpu) {
  Stream s;
  for (int i = 0; i < steps; ++i) {
    s.launch(0xa);
    s.launch(0xb);
    s.call(ApiId::cudaStreamSynchronize, 40000, 0x100, 7);
    s.idle(20000);
  }
  ProcessTrace t;
  t.events = s.events();
  if (!gpu) return t;
  // Each launch's kernel runs 10 µs, starting 1 µs after the call.
  for (size_t i = 0; i < t.events.size(); ++i) {
    if (t.events[i].api != static_cast<uint16_t>(ApiId::__cudaLaunchKernel)) continue;
    GpuActivity a;
    static_cast<GpuRecord&>(a) = GpuRecord{};
    a.kind = static_cast<uint8_t>(GpuKind::kKernel);
    a.start_ns = t.events[i].start_ns + 1000;
    a.end_ns = a.start_ns + 10000;
    a.event_index = static_cast<int64_t>(i);
    a.stream = 0x100;
    t.gpu_activity.push_back(a);
  }
  std::stable_sort(t.gpu_activity.begin(), t.gpu_activity.end(),
                   [](const GpuActivity& x, const GpuActivity& y) { return x.start_ns < y.start_ns; });
  return t;
}

const Finding* steady_at(const Analysis& a, uint32_t stack) {
  for (const Finding& f : a.findings) {
    if (f.stack_id == stack && f.phase == Phase::kSteady) return &f;
  }
  return nullptr;
}

TEST(StepFigures, FindingsKeepTheirStepsAndFirstOccurrences) {
  const ProcessTrace t = loop(300, false);
  const Analysis a = analyze(t);
  ASSERT_TRUE(a.steps.detected);
  const Finding* every = steady_at(a, 7);
  ASSERT_NE(every, nullptr);
  ASSERT_EQ(every->step_counts.size(), a.steps.steps);
  for (size_t i = 0; i < every->step_counts.size(); ++i) {
    EXPECT_EQ(every->step_counts[i].step, i);
    EXPECT_EQ(every->step_counts[i].count, 1u);
  }
  uint64_t counted = 0, blocked = 0;
  for (const FindingStepCount& s : every->step_counts) {
    counted += s.count;
    blocked += s.blocked_ns;
  }
  EXPECT_EQ(counted, every->count);
  EXPECT_EQ(blocked, every->host_blocked_ns);
  ASSERT_EQ(every->occurrences.size(), kMaxFindingOccurrences);  // bounded: 300 steps, 200 kept
  EXPECT_TRUE(
      std::is_sorted(every->occurrences.begin(), every->occurrences.end(),
                     [](const FindingOccurrence& x, const FindingOccurrence& y) { return x.start_ns < y.start_ns; }));
  EXPECT_EQ(every->occurrences.front().end_ns - every->occurrences.front().start_ns, 40000u);
  // Outside steady state a step means nothing: no counts per step.
  for (const Finding& f : a.findings) {
    if (f.phase != Phase::kSteady) {
      EXPECT_TRUE(f.step_counts.empty());
    }
  }
}

TEST(StepFigures, EachSteadyStepHasItsHostBlockedTime) {
  const Analysis a = analyze(loop(40, false));
  ASSERT_EQ(a.step_figures.size(), a.steps.steps);
  double total = 0;
  for (const StepFigures& s : a.step_figures) {
    EXPECT_GT(s.span.end_ns, s.span.start_ns);
    EXPECT_EQ(s.gpu_busy_ns, 0u);
    total += static_cast<double>(s.host_blocked_ns);
  }
  EXPECT_NEAR(total / static_cast<double>(a.steps.steps), a.blocked_ns_per_step, 1);
}

TEST(StepFigures, WithATimelineBusyAndIdleFillEachStep) {
  const Analysis a = analyze(loop(40, true));
  ASSERT_TRUE(a.gpu_timeline);
  ASSERT_EQ(a.step_figures.size(), a.steps.steps);
  for (const StepFigures& s : a.step_figures) {
    const uint64_t idle = std::accumulate(s.gpu_idle_by_cause.begin(), s.gpu_idle_by_cause.end(), uint64_t{0});
    EXPECT_GT(s.gpu_busy_ns, 0u);
    EXPECT_EQ(s.gpu_busy_ns + idle, s.span.end_ns - s.span.start_ns);
    EXPECT_GT(s.gpu_idle_by_cause[static_cast<size_t>(GpuIdleCause::kSync)], 0u);
  }
}

}  // namespace
}  // namespace syncscope::testing

namespace syncscope::testing {
namespace {

// A step's time runs from its start to the next step's start, whatever lies
// between: the phase's steps add up to its span, and no finding blocks the
// host longer per step than a step lasts. (A median step of 66 µs once sat
// beside 1.59 ms host blocked per step: scripts/demo.sh on a loaded machine,
// where two syncs in five waited milliseconds.)
void expect_steps_fill_the_phase(const Analysis& a) {
  ASSERT_FALSE(a.phases.empty());
  const PhaseInfo& loop = a.phases[0];
  ASSERT_EQ(a.phases.size(), 1u);
  const double span = static_cast<double>(loop.end_ns - loop.start_ns);
  EXPECT_NEAR(loop.step_ns * static_cast<double>(loop.steps), span, 0.001 * span);
  EXPECT_DOUBLE_EQ(a.steps.step_ns, loop.step_ns);
  for (const Finding& f : a.findings) {
    if (f.phase != Phase::kSteady) continue;
    EXPECT_LE(f.blocked_ns_per_step, loop.step_ns) << f.stack_id;
    EXPECT_LE(f.step_share, 1.0) << f.stack_id;
  }
}

TEST(StepFigures, AStepLastsUntilTheNextOneStartsWhateverItsSyncWaited) {
  Stream s;
  for (int i = 0; i < 200; ++i) {
    for (uint64_t k = 0; k < 3; ++k) s.launch(0xa + k);
    s.copy(ApiId::cudaMemcpyAsync, Direction::kDeviceToHost, HostMem::kPinned, 4, true, 7);
    s.call(ApiId::cudaStreamSynchronize, i % 5 < 2 ? 4000000 : 40000, 0x100, 7);
  }
  ProcessTrace t;
  t.events = s.events();
  const Analysis a = analyze(t);
  expect_steps_fill_the_phase(a);
  EXPECT_GT(a.phases[0].interrupted_steps, 0u);
  EXPECT_LT(a.phases[0].median_step_ns, a.phases[0].step_ns);
}

// Every 25 steps a log line makes 30 calls that never recur (each its own
// site), taking 3 ms: the pattern's run breaks there, and the steps it
// finds leave that work between two of them. It belongs to the step before,
// whose time runs on to the next step's start.
TEST(StepFigures, WorkBetweenPatternStepsBelongsToTheStepBefore) {
  Stream s;
  uint32_t one_off_site = 1000;
  for (int i = 1; i <= 200; ++i) {
    for (uint64_t k = 0; k < 20; ++k) s.launch(0x10 + k);
    s.call(ApiId::cudaStreamSynchronize, 30000, 0x100, 7);
    if (i % 25 == 0) {
      for (int c = 0; c < 30; ++c) s.call(ApiId::cudaStreamSynchronize, 100000, 0x100, one_off_site++);
    }
  }
  ProcessTrace t;
  t.events = s.events();
  const Analysis a = analyze(t);
  expect_steps_fill_the_phase(a);
  EXPECT_EQ(a.phases[0].source, StepSource::kPattern);
  EXPECT_GE(a.phases[0].steps, 190u);
}

}  // namespace
}  // namespace syncscope::testing
