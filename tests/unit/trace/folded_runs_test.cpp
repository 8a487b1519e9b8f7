// The reporter's folded view of aggregated launches (trace/launch_runs.h,
// fold_launch_run; trace/reader.h, ReadOptions): a run comes back as one
// event per block and stream standing for its launches, with the same calls,
// host time and span as the launches expand_launch_run puts back; a long
// trace is read folded, a short one launch by launch.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "trace/api.h"
#include "trace/launch_runs.h"
#include "trace/reader.h"
#include "trace/writer.h"
#include "trace_test_util.h"

namespace syncscope {
namespace {

using namespace syncscope::testing;

constexpr uint16_t kLaunch = static_cast<uint16_t>(ApiId::__cudaLaunchKernel);

Event shape(uint64_t kernel, uint64_t stream = 0x5000) {
  Event e = make_event(kLaunch, 0, 0);
  e.dst = kernel;
  e.stream = stream;
  e.flags = kFlagAsync;
  return launch_shape(e);
}

uint64_t sum_calls(const std::vector<Event>& events) {
  uint64_t n = 0;
  for (const Event& e : events) n += calls_of(e);
  return n;
}

uint64_t sum_host(const std::vector<Event>& events) {
  uint64_t n = 0;
  for (const Event& e : events) n += host_ns_of(e);
  return n;
}

// Async memsets join runs (preload/recording/launch_aggregator.cpp): a run of
// launches and memsets on one stream folds to one event per API, so the API
// table still counts each API's calls exactly.
TEST(FoldedRuns, MemsetsInARunFoldApartFromTheLaunches) {
  std::vector<Event> shapes;
  for (int i = 0; i < 36; ++i) {
    Event e = shape(0x100 + i % 6);
    if (i % 6 == 5) {
      e.api = static_cast<uint16_t>(ApiId::cudaMemsetAsync);
      e.dst = 0;
    }
    shapes.push_back(e);
  }
  const LaunchRun run{1000000, 1035000, 1035700, 36 * 500, 42, 4};
  std::vector<Event> expanded, folded;
  expand_launch_run(run, shapes.data(), shapes.size(), &expanded);
  fold_launch_run(run, fold_sequence(4, shapes.data(), shapes.size()), &folded);
  ASSERT_EQ(folded.size(), 2u);
  EXPECT_EQ(folded[0].api, kLaunch);
  EXPECT_EQ(calls_of(folded[0]), 30u);
  EXPECT_EQ(folded[1].api, static_cast<uint16_t>(ApiId::cudaMemsetAsync));
  EXPECT_EQ(calls_of(folded[1]), 6u);
  EXPECT_EQ(sum_host(folded), sum_host(expanded));
  EXPECT_NE(folded[0].dst, folded[1].dst);
}

TEST(FoldedRuns, ARunIsOneEventPerStreamWithItsCallsHostTimeAndSpan) {
  // 40 launches: 7 kernels on one stream, every fifth on another.
  std::vector<Event> shapes;
  for (int i = 0; i < 40; ++i) shapes.push_back(i % 5 == 4 ? shape(0x900, 0x6000) : shape(0x100 + i % 7));
  const LaunchRun run{1000000, 1039000, 1039700, 40 * 650 + 13, 42, 3};
  std::vector<Event> expanded, folded;
  expand_launch_run(run, shapes.data(), shapes.size(), &expanded);
  fold_launch_run(run, fold_sequence(3, shapes.data(), shapes.size()), &folded);
  ASSERT_EQ(folded.size(), 2u);
  EXPECT_EQ(sum_calls(folded), 40u);
  EXPECT_EQ(folded[0].bytes, 32u);
  EXPECT_EQ(folded[1].bytes, 8u);
  EXPECT_EQ(sum_host(folded), sum_host(expanded));  // to the nanosecond
  EXPECT_EQ(kernels_of(folded[0]), 7u);
  EXPECT_EQ(kernels_of(folded[1]), 1u);
  EXPECT_EQ(folded[0].stream, 0x5000u);
  EXPECT_EQ(folded[1].stream, 0x6000u);
  // Each spans its stream's first to last launch as expanded.
  EXPECT_EQ(folded[0].start_ns, expanded[0].start_ns);
  EXPECT_EQ(folded[0].end_ns, expanded[38].end_ns);
  EXPECT_EQ(folded[1].start_ns, expanded[4].start_ns);
  EXPECT_EQ(folded[1].end_ns, expanded[39].end_ns);
  for (const Event& e : folded) {
    EXPECT_TRUE(e.flags & kFlagFolded);
    EXPECT_TRUE(e.flags & kFlagAggregated);
    EXPECT_EQ(e.tid, 42u);
    EXPECT_EQ(api_family(e.api), ApiFamily::kLaunch);
    EXPECT_EQ(e.dst & kFoldedLaunchTag, kFoldedLaunchTag);
    EXPECT_EQ(bytes_of(e), 0u);  // a count, not bytes
  }
  // The same sequence folds to the same calls every time (the step search's tokens).
  std::vector<Event> again;
  fold_launch_run(LaunchRun{2000000, 2039000, 2039700, 99, 42, 3}, fold_sequence(3, shapes.data(), shapes.size()),
                  &again);
  EXPECT_EQ(again[0].dst, folded[0].dst);
  EXPECT_EQ(again[1].dst, folded[1].dst);
  EXPECT_NE(folded[0].dst, folded[1].dst);
}

// A loop of launches alone runs through several steps before a content cut:
// its sequence repeats the step's, and folds one event per step so the steps
// stay visible; a model of identical layers repeats a layer's few launches,
// which stay one event.
TEST(FoldedRuns, ASequenceRepeatingAStepFoldsPerStepButALayerDoesNot) {
  std::vector<Event> steps;  // 3.5 steps of 114 launches
  for (int i = 0; i < 399; ++i) steps.push_back(shape(0x100 + i % 114));
  const FoldedSequence by_step = fold_sequence(1, steps.data(), steps.size());
  const LaunchRun run{1000, 400000, 400500, 399 * 900, 7, 1};
  std::vector<Event> folded, expanded;
  fold_launch_run(run, by_step, &folded);
  expand_launch_run(run, steps.data(), steps.size(), &expanded);
  ASSERT_EQ(folded.size(), 4u);
  EXPECT_EQ(folded[0].bytes, 114u);
  EXPECT_EQ(folded[2].bytes, 114u);
  EXPECT_EQ(folded[3].bytes, 57u);  // the partial last
  EXPECT_EQ(folded[0].dst, folded[1].dst);
  EXPECT_EQ(folded[1].dst, folded[2].dst);
  EXPECT_NE(folded[2].dst, folded[3].dst);
  EXPECT_EQ(sum_host(folded), sum_host(expanded));
  EXPECT_LT(folded[0].end_ns, folded[1].start_ns);

  std::vector<Event> layers;  // 12 identical layers of 8 kernels
  for (int i = 0; i < 96; ++i) layers.push_back(shape(0x200 + i % 8));
  EXPECT_EQ(fold_sequence(2, layers.data(), layers.size()).groups.size(), 1u);
}

// A trace of steps: an upload, a run of 96 launches, a sync; written with
// runs as the recorder writes them.
std::string write_trace(const std::string& dir, int steps, bool gpu_record = false) {
  TraceWriter w;
  std::string error;
  EXPECT_TRUE(w.open(dir, make_header(77), &error)) << error;
  std::vector<Event> shapes;
  for (int i = 0; i < 96; ++i) shapes.push_back(shape(0x100 + i % 8));
  EXPECT_TRUE(w.add_launch_sequence(1, shapes.data(), 96));
  uint64_t t = 1000000;
  for (int s = 0; s < steps; ++s) {
    Event upload = make_event(static_cast<uint16_t>(ApiId::cudaMemcpyAsync), t, t + 3000);
    upload.tid = 7;
    w.add_events(&upload, 1);
    const LaunchRun run{t + 4000, t + 4000 + 95 * 3000, t + 4000 + 95 * 3000 + 2500, 96 * 2500, 7, 1};
    w.add_launch_runs(&run, 1);
    t += 4000 + 96 * 3000;
    Event sync = make_event(static_cast<uint16_t>(ApiId::cudaStreamSynchronize), t, t + 20000);
    sync.tid = 7;
    w.add_events(&sync, 1);
    t += 21000;
  }
  if (gpu_record) {
    GpuRecord kernel{};
    kernel.kind = static_cast<uint8_t>(GpuKind::kKernel);
    kernel.start_ns = 1001000;
    kernel.end_ns = 1002000;
    w.add_gpu_records(&kernel, 1);
  }
  w.add_end(EndPayload{t, 0, 0, 0});
  EXPECT_TRUE(w.flush(&error)) << error;
  w.close();
  return w.path();
}

TEST(FoldedRuns, TheReaderFoldsLongTracesOnlyAndKeepsEveryCall) {
  const std::string path = write_trace(temp_dir("folded-reader"), 50);
  auto expanded = read_trace_file(path);
  ASSERT_TRUE(expanded.ok()) << expanded.status();
  EXPECT_FALSE(expanded->folded);
  EXPECT_EQ(expanded->events.size(), 50u * 98);
  EXPECT_EQ(expanded->calls(), 50u * 98);

  auto folded = read_trace_file(path, ReadOptions{.fold_launch_runs = true, .fold_above_calls = 0});
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_TRUE(folded->folded);
  EXPECT_EQ(folded->events.size(), 50u * 3);  // upload, the run, sync
  EXPECT_EQ(folded->calls(), 50u * 98);
  EXPECT_EQ(folded->aggregated_launches, expanded->aggregated_launches);
  EXPECT_EQ(sum_host(folded->events), sum_host(expanded->events));
  EXPECT_TRUE(std::is_sorted(folded->events.begin(), folded->events.end(),
                             [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; }));

  // Short enough: read launch by launch, as without the option.
  auto short_one = read_trace_file(path, ReadOptions{.fold_launch_runs = true, .fold_above_calls = 50 * 98});
  ASSERT_TRUE(short_one.ok());
  EXPECT_FALSE(short_one->folded);
  EXPECT_EQ(short_one->events.size(), 50u * 98);
}

TEST(FoldedRuns, ATraceWithGpuActivityIsReadLaunchByLaunch) {
  const std::string path = write_trace(temp_dir("folded-gpu"), 10, /*gpu_record=*/true);
  auto trace = read_trace_file(path, ReadOptions{.fold_launch_runs = true, .fold_above_calls = 0});
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_FALSE(trace->folded);
  EXPECT_EQ(trace->events.size(), 10u * 98);
  EXPECT_EQ(trace->gpu_activity.size(), 1u);
}

}  // namespace
}  // namespace syncscope
