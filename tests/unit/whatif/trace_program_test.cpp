// Recorded calls as replay ops: kinds, waits, sites, steps, threads, GPU times.
#include "whatif/trace_program.h"

#include <gtest/gtest.h>

#include "tests/unit/detectors/synthetic.h"
#include "whatif/prediction.h"

namespace syncscope::whatif {
namespace {

constexpr uint32_t kCopyStack = 11, kSyncStack = 12;
constexpr uint64_t kUs = 1000;

struct Recording {
  ProcessTrace trace;
  std::vector<std::pair<uint64_t, uint64_t>> steps;
};

// 20 steps of 4 launches, an `.item()` (pageable async D2H copy, then a
// 900 µs stream sync) and 300 µs of host work; a second thread that only
// allocates.
Recording item_loop(bool with_timeline) {
  syncscope::testing::Stream s;
  Recording r;
  for (int step = 0; step < 20; ++step) {
    const uint64_t start = s.now();
    for (int k = 0; k < 4; ++k) s.launch(0xabc0 + k, 0);
    s.copy(ApiId::cudaMemcpyAsync, Direction::kDeviceToHost, HostMem::kPageable, 4, true, kCopyStack, 20 * kUs, 0);
    s.call(ApiId::cudaStreamSynchronize, 900 * kUs, 0, kSyncStack);
    s.idle(300 * kUs);
    r.steps.emplace_back(start, s.now());
  }
  r.trace.events = s.events();
  Event other{};
  other.api = static_cast<uint16_t>(ApiId::cudaMalloc);
  other.start_ns = r.steps[3].first + 10;
  other.end_ns = other.start_ns + 50 * kUs;
  other.tid = 2;
  r.trace.events.push_back(other);
  std::stable_sort(r.trace.events.begin(), r.trace.events.end(),
                   [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; });
  if (with_timeline) {
    for (size_t i = 0; i < r.trace.events.size(); ++i) {
      const Event& e = r.trace.events[i];
      const ApiFamily family = api_family(e.api);
      if (family != ApiFamily::kLaunch && family != ApiFamily::kCopy) continue;
      GpuActivity a{};
      a.kind = static_cast<uint8_t>(family == ApiFamily::kLaunch ? GpuKind::kKernel : GpuKind::kMemcpy);
      a.start_ns = e.end_ns + 5 * kUs;
      a.end_ns = a.start_ns + (family == ApiFamily::kLaunch ? 200 : 2) * kUs;
      a.event_index = static_cast<int64_t>(i);
      r.trace.gpu_activity.push_back(a);
    }
  }
  return r;
}

TEST(TraceProgram, CallsBecomeOpsOfTheirStep) {
  Recording r = item_loop(false);
  TraceProgram p = program_from_trace(r.trace, r.steps, {{1, 1, kSyncStack}});
  ASSERT_EQ(p.program.ops.size(), 20u * 6) << "the allocating thread feeds no GPU: left out";
  EXPECT_FALSE(p.gpu_measured);
  EXPECT_EQ(p.steps, 20u);
  const Op& launch = p.program.ops[6];
  EXPECT_EQ(launch.kind, OpKind::kEnqueue);
  EXPECT_EQ(launch.step, 1u);
  EXPECT_EQ(launch.host_before_ns, 300 * kUs + 500) << "the host's own work since the last call";
  EXPECT_EQ(launch.stream, kLegacyStream);
  const Op& copy = p.program.ops[4];
  EXPECT_EQ(copy.kind, OpKind::kBlockingCopy) << "pageable: blocks though asked to be async";
  EXPECT_EQ(copy.site, 1u) << "a read-back's copy joins its sync's site";
  const Op& sync = p.program.ops[5];
  EXPECT_EQ(sync.kind, OpKind::kStreamSync);
  EXPECT_EQ(sync.site, 1u);
  EXPECT_EQ(sync.call_ns + sync.waited_ns, 900 * kUs);
  EXPECT_GT(sync.waited_ns, sync.call_ns);
}

TEST(TraceProgram, GpuTimesComeFromAWholeRunTimeline) {
  Recording r = item_loop(true);
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  EXPECT_TRUE(p.gpu_measured);
  EXPECT_EQ(p.program.ops[0].gpu_ns, 200 * kUs);
  EXPECT_EQ(p.program.ops[4].gpu_ns, 2 * kUs);
  EXPECT_EQ(p.program.ops[5].gpu_ns, 0u) << "a sync queues nothing";
}

TEST(TraceProgram, ASampledTimelineTimesTheSameWorkOutsideItsWindows) {
  Recording r = item_loop(true);
  r.trace.gpu_windows = {{r.steps[0].first, r.steps[5].first}};
  std::vector<GpuActivity> inside;
  for (const GpuActivity& a : r.trace.gpu_activity) {
    if (r.trace.events[static_cast<size_t>(a.event_index)].start_ns < r.steps[5].first) inside.push_back(a);
  }
  r.trace.gpu_activity = inside;
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  EXPECT_TRUE(p.gpu_measured) << "every kernel and copy ran inside a window too";
  EXPECT_EQ(p.program.ops[6 * 10].gpu_ns, 200 * kUs) << "step 10's first launch: the same kernel's median";
  EXPECT_EQ(p.program.ops[6 * 10 + 4].gpu_ns, 2 * kUs);
}

TEST(TraceProgram, ATimelineMissingWorkIsNoMeasure) {
  Recording r = item_loop(true);
  std::vector<GpuActivity> kernels_only;
  for (const GpuActivity& a : r.trace.gpu_activity) {
    if (static_cast<GpuKind>(a.kind) == GpuKind::kKernel) kernels_only.push_back(a);
  }
  r.trace.gpu_activity = kernels_only;
  EXPECT_FALSE(program_from_trace(r.trace, r.steps, {}).gpu_measured) << "a fifth of the queued work untimed";
}

TEST(TraceProgram, CallsOutsideTheStepsAreLeftOut) {
  Recording r = item_loop(false);
  std::vector<std::pair<uint64_t, uint64_t>> middle(r.steps.begin() + 5, r.steps.begin() + 10);
  TraceProgram p = program_from_trace(r.trace, middle, {});
  EXPECT_EQ(p.program.ops.size(), 5u * 6);
  EXPECT_EQ(p.program.ops.front().step, 0u);
  EXPECT_EQ(p.program.ops.back().step, 4u);
}

// A program built once and marked per finding (finding_predictions.cpp):
// the read-back's copy takes its sync's site unless it is a site itself.
// (That predictions are unchanged by building once: the golden reports.)
TEST(TraceProgram, SitesMarkedOnAProgramBuiltWithout) {
  Recording r = item_loop(true);
  const TraceProgram bare = program_from_trace(r.trace, r.steps, {});
  for (const Op& op : bare.program.ops) EXPECT_EQ(op.site, 0u);
  const Program both = with_sites(bare, {{1, 1, kSyncStack}, {2, 1, kCopyStack}});
  EXPECT_EQ(both.ops[4].site, 2u) << "a copy that is a finding itself keeps its own site";
  EXPECT_EQ(both.ops[5].site, 1u);
  EXPECT_EQ(with_sites(bare, {{1, 1, kSyncStack}}).ops[4].site, 1u) << "else it joins its read-back's sync";
}

// A call that captured its stack spent the process's mean capture before
// it (recorder.capture_ns / recorder.captures): Op::recorder_ns, which no
// fix removes. Launches capture none; a trace without the keys (an older
// recorder) has none known.
TEST(TraceProgram, ACapturedCallCarriesTheRecordersMeanCapture) {
  Recording r = item_loop(false);
  const TraceProgram unknown = program_from_trace(r.trace, r.steps, {});
  for (const Op& op : unknown.program.ops) EXPECT_EQ(op.recorder_ns, 0u);
  r.trace.process_info = {{"recorder.capture_ns", "300000"}, {"recorder.captures", "100"}};
  const TraceProgram p = program_from_trace(r.trace, r.steps, {});
  size_t captured = 0;
  for (size_t i = 0; i < p.program.ops.size(); ++i) {
    const Event& e = r.trace.events[p.event_of_op[i]];
    const Op& op = p.program.ops[i];
    if (e.stack_id == 0) {
      EXPECT_EQ(op.recorder_ns, 0u) << i;
      continue;
    }
    ++captured;
    EXPECT_EQ(op.recorder_ns, std::min<uint64_t>(3 * kUs, op.host_before_ns)) << i;
  }
  EXPECT_EQ(captured, 40u) << "each step's copy and sync";
}

TEST(TraceProgram, AReadBackPredictionFromTheRecording) {
  Recording r = item_loop(false);
  TraceProgram p = program_from_trace(r.trace, r.steps, {{1, 1, kSyncStack}});
  Prediction pr = predict(p.program, {{1, Fix::kReadLater}}, 2, p.steps, false);
  EXPECT_LT(pr.replay_error(), 0.05);
  // The GPU ran at most ~0.9 ms of each 1.24 ms step, the host ~0.34 ms of
  // its own: without the wait the step is the GPU's, whatever the bound.
  EXPECT_GT(pr.saving_low_ns, 250.0 * kUs);
  EXPECT_LE(pr.saving_low_ns, pr.saving_high_ns);
  EXPECT_LT(pr.saving_high_ns, 400.0 * kUs);
}

}  // namespace
}  // namespace syncscope::whatif
