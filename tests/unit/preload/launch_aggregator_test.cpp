// The collector's folding of launches into runs (preload/recording/launch_aggregator.h)
// and the reader's unfolding (trace/launch_runs.h): what comes back is every
// call, in order, with the calls that are not launches untouched, and a
// repeated step costs a few runs, not a record per launch.
#include "preload/recording/launch_aggregator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "trace/api.h"
#include "trace/launch_runs.h"

namespace syncscope::preload {
namespace {

constexpr uint16_t kLaunchApi = static_cast<uint16_t>(ApiId::cudaLaunchKernel);
constexpr uint16_t kSyncApi = static_cast<uint16_t>(ApiId::cudaStreamSynchronize);
constexpr uint16_t kMarkApi = static_cast<uint16_t>(ApiId::syncscope_order_mark);
constexpr uint16_t kMemsetAsyncApi = static_cast<uint16_t>(ApiId::cudaMemsetAsync);
constexpr uint16_t kMemsetApi = static_cast<uint16_t>(ApiId::cudaMemset);
constexpr uint16_t kStepApi = static_cast<uint16_t>(ApiId::syncscope_optimizer_step);
constexpr uint16_t kBackwardApi = static_cast<uint16_t>(ApiId::syncscope_backward_begin);

struct Feed {
  std::vector<Event> in;  // what the hooks recorded (order marks included)
  uint64_t t = 1000;
  void call(uint16_t api, uint64_t kernel, uint32_t tid = 7, uint32_t stack = 0, uint8_t flags = 0) {
    Event e{};
    e.flags = flags;
    e.start_ns = t;
    e.end_ns = t + 3;
    e.api = api;
    e.dst = kernel;
    e.stream = 0x5000;
    e.tid = tid;
    e.stack_id = stack;
    e.device = 0;
    t += 10;
    in.push_back(e);
  }
};

// Runs the events through an aggregator and the reader's expansion.
struct Folded {
  LaunchAggregator::Output out;  // everything written, accumulated
  std::vector<Event> back;       // what a reader gets, sorted by start
  size_t sequences = 0;
};

Folded fold(const std::vector<Event>& in, bool enabled = true) {
  LaunchAggregator a(enabled);
  Folded f;
  LaunchAggregator::Output step;
  auto take = [&] {
    f.out.events.insert(f.out.events.end(), step.events.begin(), step.events.end());
    f.out.runs.insert(f.out.runs.end(), step.runs.begin(), step.runs.end());
    f.out.new_sequences.insert(f.out.new_sequences.end(), step.new_sequences.begin(), step.new_sequences.end());
    f.out.run_launches += step.run_launches;
    step.clear();
  };
  for (const Event& e : in) {
    a.add(e, &step);
    take();
  }
  a.close_all(&step);
  take();
  f.back = f.out.events;
  for (const LaunchRun& r : f.out.runs) {
    size_t count = 0;
    const Event* shapes = a.sequence(r.sequence_id, &count);
    EXPECT_NE(shapes, nullptr);
    expand_launch_run(r, shapes, count, &f.back);
  }
  std::stable_sort(f.back.begin(), f.back.end(), [](const Event& x, const Event& y) { return x.start_ns < y.start_ns; });
  f.sequences = a.sequence_count();
  return f;
}

// Every call but the order marks comes back in order, as recorded except
// for the times of folded launches; the others are byte for byte the same.
void expect_same_calls(const std::vector<Event>& in, const Folded& f) {
  std::vector<Event> want;
  for (const Event& e : in) {
    if (e.api != kMarkApi) want.push_back(e);
  }
  ASSERT_EQ(f.back.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const Event& got = f.back[i];
    ASSERT_EQ(got.api, want[i].api) << i;
    ASSERT_EQ(got.dst, want[i].dst) << i;
    ASSERT_EQ(got.tid, want[i].tid) << i;
    if ((got.flags & kFlagAggregated) == 0) {
      ASSERT_EQ(got.start_ns, want[i].start_ns) << i;
      ASSERT_EQ(got.end_ns, want[i].end_ns) << i;
    }
  }
}

TEST(LaunchAggregator, FullDetailPassesEveryCallButTheOrderMarks) {
  Feed feed;
  for (int i = 0; i < 100; ++i) feed.call(kLaunchApi, 0xA0 + i % 3);
  feed.call(kMarkApi, 0);
  feed.call(kSyncApi, 0);
  Folded f = fold(feed.in, /*enabled=*/false);
  EXPECT_TRUE(f.out.runs.empty());
  EXPECT_EQ(f.out.events.size(), 101u);
  expect_same_calls(feed.in, f);
}

// A training loop's shape: each step, 3 "layers" of launches, a copy-like
// sync, a few more launches, the read-back. The steps fold into a handful
// of sequences however many steps there are.
TEST(LaunchAggregator, RepeatedStepsFoldIntoAFewSequences) {
  Feed feed;
  for (int step = 0; step < 400; ++step) {
    for (int layer = 0; layer < 3; ++layer) {
      for (int k = 0; k < 40; ++k) feed.call(kLaunchApi, 0x1000 + k);
    }
    feed.call(kSyncApi, 0);
    for (int k = 0; k < 25; ++k) feed.call(kLaunchApi, 0x2000 + k);
    feed.call(kSyncApi, 0);
  }
  Folded f = fold(feed.in);
  expect_same_calls(feed.in, f);
  EXPECT_EQ(f.out.run_launches, 400u * 145);  // every launch in a run
  EXPECT_LE(f.sequences, 12u);
  // Bytes written: a small fraction of 64 per launch.
  const double bytes = f.out.events.size() * 64.0 + f.out.runs.size() * 40.0;
  EXPECT_LT(bytes / (400.0 * 145), 6.0) << f.out.runs.size() << " runs";
}

// PyTorch's backward zeroes a small buffer with cudaMemsetAsync every few
// kernels, at whatever block the caching allocator hands out that step.
// Those memsets join the runs (else they cut a step into stretches too
// short to fold) and their pointers do not make each step a new sequence;
// a synchronous cudaMemset stays an event (the hidden-sync detector's).
TEST(LaunchAggregator, AsyncMemsetsJoinRunsWhateverTheirPointer) {
  Feed feed;
  for (int step = 0; step < 200; ++step) {
    for (int k = 0; k < 60; ++k) {
      feed.call(kLaunchApi, 0x1000 + k);
      if (k % 5 == 4) feed.call(kMemsetAsyncApi, 0x7f0000000000ull + (static_cast<uint64_t>(step) * 977 + k) * 512, 7, 0, kFlagAsync);
    }
    feed.call(kSyncApi, 0);
  }
  feed.call(kMemsetApi, 0x7f0000000000ull);  // synchronous
  Folded f = fold(feed.in);
  EXPECT_EQ(f.out.run_launches, 200u * 72);  // every launch and async memset in a run
  EXPECT_LE(f.sequences, 4u) << "the memsets' pointers made new sequences";
  ASSERT_EQ(f.back.size(), feed.in.size());
  for (size_t i = 0; i < feed.in.size(); ++i) {
    ASSERT_EQ(f.back[i].api, feed.in[i].api) << i;
    if (feed.in[i].api == kMemsetAsyncApi) {
      EXPECT_TRUE(f.back[i].flags & kFlagAggregated) << i;
      EXPECT_TRUE(f.back[i].flags & kFlagAsync) << i;
      EXPECT_EQ(f.back[i].dst, 0u) << i << ": a folded memset's pointer is not kept";
    }
  }
  EXPECT_EQ(f.back.back().api, kMemsetApi);
  EXPECT_FALSE(f.back.back().flags & kFlagAggregated) << "a synchronous memset stays an event";
  EXPECT_EQ(f.back.back().dst, 0x7f0000000000ull);
}

// Autograd's thread launches a backward pass each step and makes no other
// call; a marker of the main thread (the optimizer step after the pass, or
// the start of the next backward() call) ends the step. The collector
// drains the two threads' rings in turn, a few steps at a time, so the
// marker may come before or after the launches around it: either way no run
// of the backward thread spans a marker, and the launches put back fall
// into the step that made them.
void expect_marker_ends_other_threads_runs(uint16_t marker_api, bool marker_before_pass) {
  constexpr uint32_t kMain = 7, kBackward = 8;
  constexpr int kSteps = 40, kPass = 50;
  Feed feed;  // in time order; split by thread below
  for (int step = 0; step < kSteps; ++step) {
    for (int k = 0; k < 20; ++k) feed.call(kLaunchApi, 0x100 + k, kMain, 0, kFlagAsync);  // forward
    if (marker_before_pass) feed.call(marker_api, 0, kMain);
    for (int k = 0; k < kPass; ++k) feed.call(kLaunchApi, 0x200 + k % 10, kBackward, 0, kFlagAsync);
    if (!marker_before_pass) feed.call(marker_api, 0, kMain);
    for (int k = 0; k < 5; ++k) feed.call(kLaunchApi, 0x300 + k, kMain, 0, kFlagAsync);  // optimizer kernels
  }
  std::vector<Event> main_thread, backward;
  std::vector<uint64_t> markers;
  for (const Event& e : feed.in) {
    (e.tid == kMain ? main_thread : backward).push_back(e);
    if (e.api == marker_api) markers.push_back(e.start_ns);
  }
  for (bool main_first : {true, false}) {
    SCOPED_TRACE(main_first);
    std::vector<Event> drained;  // rings drained in turn, 3 steps' worth at a time
    size_t m = 0, b = 0;
    while (m < main_thread.size() || b < backward.size()) {
      const size_t m_end = std::min(main_thread.size(), m + 26 * 3), b_end = std::min(backward.size(), b + kPass * 3);
      auto take_main = [&] { drained.insert(drained.end(), main_thread.begin() + m, main_thread.begin() + m_end); };
      auto take_backward = [&] { drained.insert(drained.end(), backward.begin() + b, backward.begin() + b_end); };
      if (main_first) take_main(), take_backward(); else take_backward(), take_main();
      m = m_end;
      b = b_end;
    }
    Folded f = fold(drained);
    EXPECT_GT(f.out.run_launches, backward.size() * 9 / 10);
    for (const LaunchRun& r : f.out.runs) {
      for (uint64_t marker : markers) {
        EXPECT_FALSE(r.first_start_ns < marker && marker < r.last_end_ns)
            << "a run of thread " << r.tid << " spans a marker";
      }
    }
    // Each step holds its own pass, as recorded (a pass lies after its
    // backward marker, before its optimizer-step marker).
    std::vector<int> per_step(kSteps + 1, 0);
    for (const Event& e : f.back) {
      if (e.tid != kBackward) continue;
      const size_t step = static_cast<size_t>(std::lower_bound(markers.begin(), markers.end(), e.start_ns) - markers.begin());
      ASSERT_LT(step, per_step.size());
      ++per_step[step];
    }
    const size_t first = marker_before_pass ? 1 : 0;
    for (int step = 0; step < kSteps; ++step) EXPECT_EQ(per_step[first + static_cast<size_t>(step)], kPass) << step;
  }
}

TEST(LaunchAggregator, AStepMarkerEndsOtherThreadsRunsThere) {
  expect_marker_ends_other_threads_runs(kStepApi, /*marker_before_pass=*/false);
}

// Without torch.optim (a manual update), the backward marker at each
// loss.backward() call cuts the runs the same way.
TEST(LaunchAggregator, ABackwardMarkerEndsOtherThreadsRunsThere) {
  expect_marker_ends_other_threads_runs(kBackwardApi, /*marker_before_pass=*/true);
}

// No call but launches, for a long time (a loop with no sync at all): the
// content of the launches cuts the runs at the same places every step (or,
// where no content cut comes within kMaxRun, after the largest window hash,
// the same place in every period), so the sequences stay few although no
// other call ends a run. Several step lengths, kernels drawn at random.
TEST(LaunchAggregator, ContentCutsKeepAStepWithoutSyncsRepeating) {
  for (int period : {1, 3, 37, 101, 500, 1500, 3000}) {
    SCOPED_TRACE(period);
    std::mt19937_64 rng(static_cast<uint64_t>(period));
    std::vector<uint64_t> kernels(static_cast<size_t>(period));
    for (uint64_t& k : kernels) k = 0x100000 + rng() % 64;  // a few dozen kernels, repeated in the step
    Feed feed;
    const int steps = std::max(40, 200000 / period);
    for (int step = 0; step < steps; ++step) {
      for (uint64_t k : kernels) feed.call(kLaunchApi, k);
    }
    Folded f = fold(feed.in);
    expect_same_calls(feed.in, f);
    const size_t launches = feed.in.size();
    EXPECT_GT(f.out.run_launches, launches * 95 / 100);
    EXPECT_LE(f.sequences, 40u) << f.out.runs.size() << " runs";
    EXPECT_GT(f.out.runs.size(), 0u);
  }
}

// A call held back for its Python frames reaches the ring after launches
// made later; its order mark, pushed in its place, ends the run there, so no
// run spans its time and it sorts back exactly where it was made.
TEST(LaunchAggregator, AnOrderMarkEndsTheRunWhereALateCallWasMade) {
  Feed feed;
  for (int k = 0; k < 30; ++k) feed.call(kLaunchApi, 0x4000 + k);
  feed.call(kMarkApi, 0);
  Event late = feed.in.back();
  late.api = kSyncApi;
  late.stack_id = 3;
  for (int k = 0; k < 30; ++k) feed.call(kLaunchApi, 0x5000 + k);
  feed.in.push_back(late);  // pushed when the thread took the GIL back
  Folded f = fold(feed.in);
  ASSERT_EQ(f.out.runs.size(), 2u);
  for (const LaunchRun& r : f.out.runs) {
    EXPECT_FALSE(r.first_start_ns <= late.start_ns && late.start_ns <= r.last_start_ns);
  }
  std::vector<Event> in_order = feed.in;
  in_order.pop_back();
  in_order.insert(in_order.begin() + 31, late);
  expect_same_calls(in_order, f);
}

TEST(LaunchAggregator, ShortStretchesErrorsAndStacksStayEvents) {
  Feed feed;
  for (int step = 0; step < 50; ++step) {
    for (int k = 0; k < 5; ++k) feed.call(kLaunchApi, 0x6000 + k);  // shorter than kMinRun
    feed.call(kSyncApi, 0);
  }
  feed.call(kLaunchApi, 0x7000, 7, /*stack=*/4);
  Folded f = fold(feed.in);
  EXPECT_TRUE(f.out.runs.empty());
  EXPECT_EQ(f.out.events.size(), feed.in.size());
  EXPECT_FALSE(LaunchAggregator::foldable(feed.in.back()));
  Event error = feed.in.front();
  error.flags |= kFlagError;
  EXPECT_FALSE(LaunchAggregator::foldable(error));
}

// Threads fold apart; a stale run is closed by time, not left open.
TEST(LaunchAggregator, ThreadsFoldApartAndStaleRunsClose) {
  Feed feed;
  for (int k = 0; k < 200; ++k) feed.call(kLaunchApi, 0x8000 + k % 7, k % 2 == 0 ? 7 : 8);
  Folded f = fold(feed.in);
  expect_same_calls(feed.in, f);
  for (const LaunchRun& r : f.out.runs) EXPECT_TRUE(r.tid == 7 || r.tid == 8);

  LaunchAggregator a(true);
  LaunchAggregator::Output out;
  for (int k = 0; k < 20; ++k) a.add(feed.in[static_cast<size_t>(k) * 2], &out);
  const uint64_t last_end = feed.in[38].end_ns;
  const uint64_t before = out.run_launches + out.events.size();
  a.close_stale(last_end + 100, /*idle_ns=*/1000, &out);
  EXPECT_EQ(out.run_launches + out.events.size(), before) << "closed while not idle";
  a.close_stale(last_end + 5000, 1000, &out);
  EXPECT_EQ(out.run_launches + out.events.size(), 20u) << "an idle run is closed";
}

// Launches that never repeat fill the dictionary up to its bound, then go
// out as events: none is lost, the collector's memory stays bounded.
TEST(LaunchAggregator, ADictionaryFullOfNeverRepeatedSequencesFallsBackToEvents) {
  Feed feed;
  std::mt19937_64 rng(5);
  const size_t n = LaunchAggregator::kMaxShapes * 2;
  for (size_t i = 0; i < n; ++i) feed.call(kLaunchApi, rng());
  Folded f = fold(feed.in);
  EXPECT_EQ(f.out.run_launches + f.out.events.size(), n);
  EXPECT_GT(f.out.events.size(), n / 3);
  EXPECT_LE(f.out.run_launches, LaunchAggregator::kMaxShapes);
  expect_same_calls(feed.in, f);
}

}  // namespace
}  // namespace syncscope::preload
