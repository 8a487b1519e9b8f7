// Predictions on issue 27's two loops: a per-step read-back in a GPU-bound
// and in a host-bound loop. The truth is the fixed loop replayed with its GPU
// times known; the prediction comes from the broken loop's recording.
#include "whatif/prediction.h"

#include <gtest/gtest.h>

#include "tests/unit/whatif/loops.h"

namespace syncscope::whatif {
namespace {

using testing::kReadBackSite;
using testing::kUs;
using testing::training_loop;

constexpr uint32_t kSteps = 200;
constexpr uint32_t kWarmup = 10;

double true_saving(uint64_t host_ns, int kernels, uint64_t kernel_ns) {
  const double broken = replay(training_loop(kSteps, host_ns, kernels, kernel_ns, true)).mean_step_ns(kWarmup, kSteps);
  // The fixed twin reads the value later: its copy stays, nothing waits.
  Program fixed = training_loop(kSteps, host_ns, kernels, kernel_ns, true);
  for (Op& op : fixed.ops) {
    if (op.kind == OpKind::kStreamSync) op.kind = OpKind::kHostOnly;
  }
  return broken - replay(fixed).mean_step_ns(kWarmup, kSteps);
}

TEST(Prediction, GpuBoundReadBackWithMeasuredGpuTimes) {
  Program broken = training_loop(kSteps, 300 * kUs, 4, 400 * kUs, true);
  Prediction p = predict(broken, {{kReadBackSite, Fix::kReadLater}}, kWarmup, kSteps, true);
  EXPECT_EQ(p.basis, Basis::kMeasured);
  EXPECT_LT(p.replay_error(), 0.001);
  const double truth = true_saving(300 * kUs, 4, 400 * kUs);
  EXPECT_NEAR(p.saving_low_ns, truth, 0.02 * truth);
  EXPECT_DOUBLE_EQ(p.saving_low_ns, p.saving_high_ns);
  // The step becomes the GPU's 1.6 ms: the fix saves the host's own time.
  EXPECT_NEAR(p.step_without_low_ns, 1600.0 * kUs + 2 * kUs, 10 * kUs);
  EXPECT_NEAR(p.saving_low_ns, p.recorded_step_ns - p.step_without_low_ns, 1);
}

TEST(Prediction, HostBoundReadBackWithMeasuredGpuTimes) {
  Program broken = training_loop(kSteps, 2000 * kUs, 4, 100 * kUs, true);
  Prediction p = predict(broken, {{kReadBackSite, Fix::kReadLater}}, kWarmup, kSteps, true);
  const double truth = true_saving(2000 * kUs, 4, 100 * kUs);
  EXPECT_NEAR(p.saving_low_ns, truth, 0.02 * truth);
  // The step becomes the host's own time: the fix saves the GPU's 400 µs.
  EXPECT_NEAR(p.saving_low_ns, 400.0 * kUs, 30 * kUs);
}

// Without a GPU timeline: the interval from the host's timing must hold the
// truth, and be narrow when the launches come together before the sync.
TEST(Prediction, FromHostTimingAloneTheIntervalHoldsTheTruth) {
  for (auto [host, kernel] : {std::pair<uint64_t, uint64_t>{300 * kUs, 400 * kUs}, {2000 * kUs, 100 * kUs}}) {
    Program broken = training_loop(kSteps, host, 4, kernel, true);
    for (Op& op : broken.ops) op.gpu_ns = 0;  // unknown: only the waits were recorded
    Prediction p = predict(broken, {{kReadBackSite, Fix::kReadLater}}, kWarmup, kSteps, false);
    EXPECT_EQ(p.basis, Basis::kHostBound);
    EXPECT_LT(p.replay_error(), 0.01) << "both bounds replay the recorded waits";
    const double truth = true_saving(host, 4, kernel);
    EXPECT_LE(p.saving_low_ns, truth * 1.01) << host;
    EXPECT_GE(p.saving_high_ns, truth * 0.99) << host;
    EXPECT_LT(p.saving_high_ns - p.saving_low_ns, 0.25 * truth) << "launches close together: a narrow interval";
  }
}

TEST(Prediction, RecordedStepEndsAddUpTheHostsTime) {
  Program p;
  Op a;
  a.host_before_ns = 10;
  a.call_ns = 5;
  a.waited_ns = 100;
  Op b = a;
  b.step = 1;
  p.ops = {a, b};
  EXPECT_EQ(recorded_step_ends(p), (std::vector<uint64_t>{115, 230}));
}

TEST(Prediction, NoFixNoSaving) {
  Program broken = training_loop(50, 300 * kUs, 4, 400 * kUs, true);
  Prediction p = predict(broken, {}, 5, 50, true);
  EXPECT_DOUBLE_EQ(p.saving_low_ns, 0);
  EXPECT_DOUBLE_EQ(p.replayed_step_ns, p.step_without_low_ns);
}

}  // namespace
}  // namespace syncscope::whatif

namespace syncscope::whatif {
namespace {

// gpu_estimate.h's promise: either bound, replayed, waits as the recording did.
TEST(GpuEstimate, BothBoundsReplayTheRecordedWaits) {
  for (auto [host, kernel] : {std::pair<uint64_t, uint64_t>{300 * kUs, 400 * kUs}, {2000 * kUs, 100 * kUs}}) {
    Program recorded = training_loop(40, host, 4, kernel, true);
    for (GpuBound bound : {GpuBound::kLow, GpuBound::kHigh}) {
      Program estimated = with_estimated_gpu_time(recorded, bound);
      Replay r = replay(estimated);
      for (size_t i = 0; i < recorded.ops.size(); ++i) {
        EXPECT_NEAR(static_cast<double>(r.waited_ns[i]), static_cast<double>(recorded.ops[i].waited_ns), 1.0)
            << "op " << i << (bound == GpuBound::kLow ? " low" : " high");
      }
    }
    uint64_t low = 0, high = 0;
    for (const Op& op : with_estimated_gpu_time(recorded, GpuBound::kLow).ops) low += op.gpu_ns;
    for (const Op& op : with_estimated_gpu_time(recorded, GpuBound::kHigh).ops) high += op.gpu_ns;
    EXPECT_LT(low, high);
  }
}

// A wait with nothing queued since the last one: the work before ran longer.
TEST(GpuEstimate, AWaitWithNothingQueuedStretchesTheLastWork) {
  Program p;
  p.launch_latency_ns = 0;
  Op copy;
  copy.kind = OpKind::kBlockingCopy;
  copy.call_ns = 1 * kUs;
  copy.waited_ns = 10 * kUs;
  Op sync;
  sync.kind = OpKind::kStreamSync;
  sync.call_ns = 1 * kUs;
  sync.waited_ns = 100 * kUs;
  p.ops = {copy, sync};
  Program e = with_estimated_gpu_time(p, GpuBound::kLow);
  EXPECT_EQ(e.ops[0].gpu_ns, 10 * kUs + 1 * kUs + 100 * kUs);
  // The host now waits in the copy, then makes the sync's call: it ends one
  // call later than recorded (112 µs), not a wait later.
  EXPECT_EQ(replay(e).host_end_ns[0], 113 * kUs);
  EXPECT_EQ(recorded_step_ends(p)[0], 112 * kUs);
}

}  // namespace
}  // namespace syncscope::whatif

namespace syncscope::whatif {
namespace {

// A host running ahead of a GPU-bound loop: its steps are shorter than the
// GPU's while its queue grows. With a full timeline's GPU end times the
// recorded steps end as replayed ones do, when their GPU work is done.
TEST(Prediction, RecordedStepsEndWhenTheirGpuWorkIsDone) {
  Program p;
  for (uint32_t step = 0; step < 4; ++step) {
    Op launch;
    launch.kind = OpKind::kEnqueue;
    launch.host_before_ns = 90;
    launch.call_ns = 10;
    launch.gpu_ns = 150;
    launch.step = step;
    launch.recorded_gpu_end_ns = 150 * (step + 1) + 5;  // the GPU at its own pace, 5 ns behind the first launch
    p.ops.push_back(launch);
  }
  EXPECT_EQ(recorded_step_ends(p), (std::vector<uint64_t>{155, 305, 455, 605}));
  Replay r = replay(p);
  const Prediction fitted = predict(p, {}, 1, 4, true);
  EXPECT_NEAR(fitted.recorded_step_ns, 150, 1e-9);
  EXPECT_NEAR(fitted.replayed_step_ns, r.mean_step_ns(1, 4), 1e-9);
  EXPECT_LT(fitted.replay_error(), 0.01) << "the replay runs at the GPU's pace too";
  // The host's time alone: 100 a step, a third short of the GPU's.
  for (Op& op : p.ops) op.recorded_gpu_end_ns = 0;
  EXPECT_NEAR(predict(p, {}, 1, 4, true).recorded_step_ns, 100, 1e-9);
}

}  // namespace
}  // namespace syncscope::whatif
