// Segmentation cost on long synthetic traces (issue 11: linear in events).
// Three shapes of 10^6 .. 10^7 events: a repeating training loop (with an
// eval pass every 50 steps), the same loop with a second thread's launches
// interleaved, and the worst case for a pattern search, calls that never
// repeat in order (30 kernels in random order, no optimizer-step markers).
//   build/bench/segmentation_bench --benchmark_filter=... (figures in docs/performance.md)
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "segmentation/segmentation.h"
#include "trace/api.h"

namespace syncscope {
namespace {

Event call(ApiId api, uint64_t& now, uint64_t what, uint32_t tid, uint32_t stack = 0) {
  Event e{};
  e.api = static_cast<uint16_t>(api);
  e.start_ns = now;
  e.end_ns = now + 2000;
  now += 2500;
  e.dst = what;
  e.stream = 0x100;
  e.tid = tid;
  e.stack_id = stack;
  if (api_family(e.api) == ApiFamily::kLaunch) e.flags |= kFlagAsync;
  return e;
}

std::vector<Event> training_loop(size_t n, int interleave_percent) {
  std::vector<Event> events;
  events.reserve(n + n / 10);
  std::mt19937 rng(1);
  uint64_t now = 1000;
  for (size_t step = 0; events.size() < n; ++step) {
    for (uint64_t k = 0; k < 60; ++k) {
      events.push_back(call(ApiId::__cudaLaunchKernel, now, 10 + k % 12, 1));
      if (interleave_percent > 0 && static_cast<int>(rng() % 100) < interleave_percent) {
        events.push_back(call(ApiId::__cudaLaunchKernel, now, 500 + rng() % 50, 2));
      }
    }
    events.push_back(call(ApiId::cudaStreamSynchronize, now, 0, 1, 7));
    if (step % 50 == 49) {
      for (int batch = 0; batch < 5; ++batch) {
        for (uint64_t k = 0; k < 20; ++k) events.push_back(call(ApiId::__cudaLaunchKernel, now, 10 + k % 12, 1));
        events.push_back(call(ApiId::cudaStreamSynchronize, now, 0, 1, 9));
      }
    }
  }
  events.resize(n);
  return events;
}

std::vector<Event> never_repeating(size_t n) {
  std::vector<Event> events;
  events.reserve(n);
  std::mt19937 rng(2);
  uint64_t now = 1000;
  while (events.size() < n) events.push_back(call(ApiId::__cudaLaunchKernel, now, rng() % 30, 1));
  return events;
}

void run(benchmark::State& state, const std::vector<Event>& events) {
  for (auto _ : state) {
    Segmentation seg = segment_run(events, StepOptions{});
    benchmark::DoNotOptimize(seg.main.steps);
  }
  state.counters["events"] = static_cast<double>(events.size());
  state.counters["ns/event"] = benchmark::Counter(
      static_cast<double>(events.size()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_TrainingLoop(benchmark::State& state) { run(state, training_loop(state.range(0), 0)); }
void BM_TrainingLoopTwoThreads(benchmark::State& state) { run(state, training_loop(state.range(0), 50)); }
void BM_NeverRepeating(benchmark::State& state) { run(state, never_repeating(state.range(0))); }

BENCHMARK(BM_TrainingLoop)->Arg(1000000)->Arg(10000000)->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(3);
BENCHMARK(BM_TrainingLoopTwoThreads)
    ->Arg(1000000)
    ->Arg(10000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(3);
BENCHMARK(BM_NeverRepeating)->Arg(1000000)->Arg(10000000)->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(3);

}  // namespace
}  // namespace syncscope

BENCHMARK_MAIN();
