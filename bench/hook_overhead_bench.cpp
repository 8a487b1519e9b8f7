// Added cost of syncscope's hooks, measured in one process: run under
// LD_PRELOAD=libsyncscope.so (bench/run_hook_bench.sh does this), the
// "direct" benchmarks call the runtime's own function (looked up in the
// runtime library by handle, bypassing the preload) and the "hooked" ones
// call the same symbol as the program would, through the preload.
// Against bench/null_runtime the difference is the hook alone.
#include <benchmark/benchmark.h>

#include <chrono>
#include <thread>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace {

using LaunchFn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);
using SyncFn = cudaError_t (*)(cudaStream_t);
using RecordFn = cudaError_t (*)(cudaEvent_t, cudaStream_t);
using CopyFn = cudaError_t (*)(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t);
using DriverLaunchFn = int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                               void**, void**);

struct Functions {
  LaunchFn launch_direct, launch_hooked;
  SyncFn sync_direct, sync_hooked;
  RecordFn record_direct, record_hooked;
  CopyFn copy_direct, copy_hooked;
  DriverLaunchFn driver_launch_direct, driver_launch_hooked;
};

template <typename Fn>
Fn must(void* p, const char* what) {
  if (p == nullptr) {
    std::fprintf(stderr, "hook_overhead_bench: cannot find %s (%s)\n", what, dlerror());
    std::exit(2);
  }
  return reinterpret_cast<Fn>(p);
}

const Functions& functions() {
  static Functions f = [] {
    const char* lib = std::getenv("SYNCSCOPE_BENCH_RUNTIME");
    void* runtime = dlopen(lib ? lib : "libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    if (runtime == nullptr) {
      std::fprintf(stderr, "hook_overhead_bench: cannot load the runtime: %s\n", dlerror());
      std::exit(2);
    }
    Functions out{};
    out.launch_direct = must<LaunchFn>(dlsym(runtime, "__cudaLaunchKernel"), "direct launch");
    out.launch_hooked = must<LaunchFn>(dlsym(RTLD_DEFAULT, "__cudaLaunchKernel"), "hooked launch");
    out.sync_direct = must<SyncFn>(dlsym(runtime, "cudaStreamSynchronize"), "direct sync");
    out.sync_hooked = must<SyncFn>(dlsym(RTLD_DEFAULT, "cudaStreamSynchronize"), "hooked sync");
    out.record_direct = must<RecordFn>(dlsym(runtime, "cudaEventRecord"), "direct record");
    out.record_hooked = must<RecordFn>(dlsym(RTLD_DEFAULT, "cudaEventRecord"), "hooked record");
    out.copy_direct = must<CopyFn>(dlsym(runtime, "cudaMemcpyAsync"), "direct copy");
    out.copy_hooked = must<CopyFn>(dlsym(RTLD_DEFAULT, "cudaMemcpyAsync"), "hooked copy");
    // A Triton launch: cuLaunchKernel looked up in libcuda's handle (the
    // preload's dlsym hands out its wrapper); direct: the library's own.
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (driver != nullptr) {
      auto own = reinterpret_cast<void* (*)()>(dlsym(driver, "syncscopeNullDriverLaunch"));
      out.driver_launch_direct = own ? reinterpret_cast<DriverLaunchFn>(own()) : nullptr;
      out.driver_launch_hooked = reinterpret_cast<DriverLaunchFn>(dlsym(driver, "cuLaunchKernel"));
    }
    if (out.launch_direct == out.launch_hooked) {
      std::fprintf(stderr, "hook_overhead_bench: not running under the preload (LD_PRELOAD)\n");
      std::exit(2);
    }
    return out;
  }();
  return f;
}

// Before each repetition, untimed: the collector empties the ring, so the
// repetition's 2^20 events fit in it (the script's 2^22-event ring) and no
// figure times the drop path (issue 15: one run dropped 82% without this).
void let_the_collector_drain() { std::this_thread::sleep_for(std::chrono::milliseconds(150)); }

void launch(benchmark::State& state, LaunchFn fn) {
  auto kernel = reinterpret_cast<cudaKernel_t>(0x1234);
  void* args[1] = {nullptr};
  let_the_collector_drain();
  for (auto _ : state) {
    benchmark::DoNotOptimize(fn(kernel, dim3(1), dim3(32), args, 0, nullptr));
  }
}

void BM_LaunchDirect(benchmark::State& state) { launch(state, functions().launch_direct); }
void BM_LaunchHooked(benchmark::State& state) { launch(state, functions().launch_hooked); }

void driver_launch(benchmark::State& state, DriverLaunchFn fn) {
  if (fn == nullptr) {
    state.SkipWithError("no null libcuda.so.1 (bench/null-runtime)");
    return;
  }
  void* args[1] = {nullptr};
  let_the_collector_drain();
  for (auto _ : state) {
    benchmark::DoNotOptimize(fn(reinterpret_cast<void*>(0x1234), 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  }
}
void BM_DriverLaunchDirect(benchmark::State& state) { driver_launch(state, functions().driver_launch_direct); }
void BM_DriverLaunchHooked(benchmark::State& state) { driver_launch(state, functions().driver_launch_hooked); }

void BM_EventRecordDirect(benchmark::State& state) {
  let_the_collector_drain();
  for (auto _ : state) benchmark::DoNotOptimize(functions().record_direct(nullptr, nullptr));
}
void BM_EventRecordHooked(benchmark::State& state) {
  let_the_collector_drain();
  for (auto _ : state) benchmark::DoNotOptimize(functions().record_hooked(nullptr, nullptr));
}

// A sync captures a native stack: the price paid only for events worth reporting.
void BM_StreamSyncDirect(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(functions().sync_direct(nullptr));
}
void BM_StreamSyncHooked(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(functions().sync_hooked(nullptr));
}

// A host-to-device copy from pageable memory: stack + pointer classification.
void BM_PageableCopyHooked(benchmark::State& state) {
  static char host[64];
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        functions().copy_hooked(reinterpret_cast<void*>(0x10), host, sizeof(host), cudaMemcpyHostToDevice, nullptr));
  }
}

// Fixed iteration counts keep every repetition inside the ring the runner
// configures (SYNCSCOPE_RING_EVENTS), so no event is dropped and the
// measured path is the real push, not the cheaper drop.
constexpr int64_t kHotIterations = 1 << 20;
constexpr int64_t kStackIterations = 1 << 14;
BENCHMARK(BM_LaunchDirect)->Iterations(kHotIterations)->Repetitions(15)->ReportAggregatesOnly(true);
BENCHMARK(BM_LaunchHooked)->Iterations(kHotIterations)->Repetitions(15)->ReportAggregatesOnly(true);
BENCHMARK(BM_DriverLaunchDirect)->Iterations(kHotIterations)->Repetitions(15)->ReportAggregatesOnly(true);
BENCHMARK(BM_DriverLaunchHooked)->Iterations(kHotIterations)->Repetitions(15)->ReportAggregatesOnly(true);
BENCHMARK(BM_EventRecordDirect)->Iterations(kHotIterations)->Repetitions(15)->ReportAggregatesOnly(true);
BENCHMARK(BM_EventRecordHooked)->Iterations(kHotIterations)->Repetitions(15)->ReportAggregatesOnly(true);
BENCHMARK(BM_StreamSyncDirect)->Iterations(kStackIterations)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_StreamSyncHooked)->Iterations(kStackIterations)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_PageableCopyHooked)->Iterations(kStackIterations)->Repetitions(9)->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
