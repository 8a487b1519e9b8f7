#include "segmentation/steps.h"

#include <gtest/gtest.h>

#include <random>

#include "tests/unit/detectors/steps_by_time.h"
#include "tests/unit/detectors/synthetic.h"

namespace syncscope::testing {
namespace {

TEST(Steps, RepeatingPatternAfterWarmupAndBeforeTeardown) {
  Stream s;
  // Warm-up: allocations and one-off kernels.
  s.call(ApiId::cudaMalloc, 50000, 0, 9);
  for (int k = 0; k < 5; ++k) s.launch(100 + k);
  // 30 steps of 4 kernels and a sync.
  for (int step = 0; step < 30; ++step) {
    for (int k = 0; k < 4; ++k) s.launch(k + 1);
    s.call(ApiId::cudaStreamSynchronize, 20000, 0x100, 7);
  }
  s.call(ApiId::cudaFree, 10000, 0, 8);  // teardown
  StepInfo info = detect_steps(s.events(), StepOptions{});
  ASSERT_TRUE(info.detected);
  EXPECT_EQ(info.period_calls, 5u);
  EXPECT_GE(info.steps, 27u);  // one step counted as warm-up, edges trimmed
  EXPECT_LE(info.steps, 29u);
  EXPECT_GT(info.step_ns, 0);
  EXPECT_GT(info.steady_start_ns, s.events()[5].start_ns);    // after the warm-up kernels
  EXPECT_LE(info.steady_end_ns, s.events().back().start_ns);  // the final free is teardown
}

TEST(Steps, NoisyPatternStillFound) {
  Stream s;
  std::mt19937 rng(7);
  for (int step = 0; step < 60; ++step) {
    for (int k = 0; k < 6; ++k) s.launch(k + 1);
    if (rng() % 10 == 0) s.launch(999);  // an occasional extra kernel
    s.call(ApiId::cudaStreamSynchronize, 20000, 0x100, 7);
  }
  StepInfo info = detect_steps(s.events(), StepOptions{});
  ASSERT_TRUE(info.detected);
  EXPECT_EQ(info.period_calls, 7u);
  EXPECT_GT(info.steps, 10u);
}

TEST(Steps, NoPatternFallsBackToTimeWarmup) {
  Stream s;
  std::mt19937 rng(3);
  for (int i = 0; i < 200; ++i) s.launch(rng() % 1000);
  StepOptions options;
  options.warmup_seconds = 0;
  StepInfo info = detect_steps(s.events(), options);
  EXPECT_FALSE(info.detected);
  EXPECT_EQ(info.steady_start_ns, s.events().front().start_ns);
  StepInfo default_warmup = detect_steps(s.events(), StepOptions{});
  EXPECT_GT(default_warmup.steady_start_ns, s.events().front().start_ns);
}

TEST(Steps, CapturedLaunchesAreNotPartOfThePattern) {
  Stream s;
  for (int step = 0; step < 20; ++step) {
    s.launch(1);
    s.launch(2).flags |= kFlagCapturing;
    s.call(ApiId::cudaStreamSynchronize, 1000, 0x100, 3);
  }
  StepInfo info = detect_steps(s.events(), StepOptions{});
  ASSERT_TRUE(info.detected);
  EXPECT_EQ(info.period_calls, 2u);
}

TEST(Steps, EmptyStream) {
  StepInfo info = detect_steps({}, StepOptions{});
  EXPECT_FALSE(info.detected);
}

}  // namespace
}  // namespace syncscope::testing

namespace syncscope::testing {
namespace {

// torch.compile: thousands of varied calls while compiling, then a short loop.
TEST(Steps, ShortLoopAfterALongWarmup) {
  Stream s;
  std::mt19937 rng(11);
  for (int i = 0; i < 2000; ++i) {
    if (rng() % 3 == 0)
      s.call(ApiId::cudaMalloc, 1000, 0, 100 + rng() % 500);
    else
      s.launch(1000 + rng() % 5000);
  }
  for (int step = 0; step < 40; ++step) {
    s.launch(1);
    s.launch(2);
    s.copy(ApiId::cudaMemcpyAsync, Direction::kDeviceToHost, HostMem::kPinned, 4, true, 7);
    s.call(ApiId::cudaStreamSynchronize, 20000, 0x100, 7);
  }
  s.call(ApiId::cudaFree, 1000, 0, 9);
  StepInfo info = detect_steps(s.events(), StepOptions{});
  ASSERT_TRUE(info.detected);
  EXPECT_EQ(info.period_calls, 4u);
  EXPECT_GE(info.steps, 35u);
  EXPECT_GE(info.steady_start_ns, s.events()[2000].start_ns);
}

}  // namespace
}  // namespace syncscope::testing

namespace syncscope::testing {
namespace {

// graph_replay.py: model.cuda() copies its parameters one by one (a copy
// and a sync, four times) long before a loop of the same period (a copy and
// a graph launch) begins. The start-up pairs are not steps: the steady state
// is the loop's, and the capture between them is warm-up.
TEST(Steps, StartupPairsOfTheLoopsPeriodAreNotSteps) {
  Stream s;
  for (int k = 0; k < 4; ++k) {
    s.copy(ApiId::cudaMemcpyAsync, Direction::kHostToDevice, HostMem::kPageable, 2048, true, 21);
    s.call(ApiId::cudaStreamSynchronize, 3000, 0x100, 22);
  }
  s.idle(4'000'000'000);  // imports, cuBLAS start-up
  for (int k = 0; k < 30; ++k) s.launch(200 + k);  // warm-up steps and the capture
  s.call(ApiId::cudaMalloc, 100000, 0, 23);
  for (int step = 0; step < 40; ++step) {
    s.copy(ApiId::cudaMemcpyAsync, Direction::kDeviceToDevice, HostMem::kNone, 524288, true, 24);
    s.call(ApiId::cudaGraphLaunch, 3000, 0x100, 25);
  }
  s.call(ApiId::cudaDeviceSynchronize, 2000000, 0, 26);
  StepInfo info = detect_steps(s.events(), StepOptions{});
  ASSERT_TRUE(info.detected);
  EXPECT_EQ(info.period_calls, 2u);
  EXPECT_LE(info.steps, 40u);
  EXPECT_GT(info.steady_start_ns, s.events()[38].start_ns);  // after the malloc: the capture is warm-up
}

}  // namespace
}  // namespace syncscope::testing
