// Checks that the fake runtime behaves as the tests built on it assume:
// timings of copies, kernels and syncs, legacy-stream ordering, events,
// graph capture and replay, pointer kinds, errors, threads and fork.
// Plain C++ (no nvcc): it registers its own "kernels" the way nvcc's start-up
// code does. Exit status 0 when every check passes.
#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "preload/hooks/cuda_private_api.h"
#include "tests/fakecuda/nvcc_abi.h"

extern "C" int syncscopeFakeCudaRuntime;

namespace {

int g_failures = 0;

#define EXPECT(cond, ...)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      ++g_failures;                                                        \
      std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                   \
      std::fprintf(stderr, "\n");                                          \
    }                                                                      \
  } while (0)

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Stand-ins for nvcc's host stubs: only their addresses matter.
void spin_stub() {}
void other_stub() {}
int g_symbol[16];

void register_kernels() {
  static char fatbin[16];
  void** handle = __cudaRegisterFatBinary(fatbin);
  __cudaRegisterFunction(handle, reinterpret_cast<const char*>(&spin_stub), nullptr, "_ZL14syncscope_spinx", -1,
                         nullptr, nullptr, nullptr, nullptr, nullptr);
  __cudaRegisterFunction(handle, reinterpret_cast<const char*>(&other_stub), nullptr, "_Z5otherv", -1, nullptr, nullptr,
                         nullptr, nullptr, nullptr);
  __cudaRegisterVar(handle, reinterpret_cast<char*>(g_symbol), nullptr, "g_symbol", 0, sizeof(g_symbol), 0, 0);
  __cudaRegisterFatBinaryEnd(handle);
}

cudaError_t spin(long long ns, cudaStream_t s) {
  void* args[] = {&ns};
  return cudaLaunchKernel(reinterpret_cast<const void*>(&spin_stub), dim3(1), dim3(1), args, 0, s);
}

// New streams start a worker thread, which can take milliseconds on a loaded
// virtual machine: checks of timing start with workers that already run.
void warm(cudaStream_t s) {
  spin(0, s);
  cudaStreamSynchronize(s);
}

template <typename F>
double time_us(F&& f) {
  double t = now_us();
  f();
  return now_us() - t;
}

void check_copies() {
  constexpr size_t kMiB = 1 << 20;
  void *dev, *pinned;
  EXPECT(cudaMalloc(&dev, kMiB) == cudaSuccess, "cudaMalloc");
  EXPECT(cudaMallocHost(&pinned, kMiB) == cudaSuccess, "cudaMallocHost");
  std::vector<char> pageable(kMiB, 7);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  // Warm-up: the first touch of fresh memory costs page faults.
  cudaMemcpyAsync(dev, pageable.data(), kMiB, cudaMemcpyHostToDevice, s);
  cudaMemcpyAsync(dev, pinned, kMiB, cudaMemcpyHostToDevice, s);
  cudaStreamSynchronize(s);
  double t = time_us([&] { cudaMemcpyAsync(dev, pageable.data(), kMiB, cudaMemcpyHostToDevice, s); });
  EXPECT(t >= 95 && t < 3000, "pageable 1 MiB async copy blocked %.1f us (want ~100)", t);
  EXPECT(static_cast<char*>(dev)[kMiB - 1] == 7, "pageable copy done on return");
  std::memset(pinned, 9, kMiB);
  t = time_us([&] { cudaMemcpyAsync(dev, pinned, kMiB, cudaMemcpyHostToDevice, s); });
  EXPECT(cudaStreamQuery(s) == cudaErrorNotReady, "pinned async copy still queued on return");
  EXPECT(t < 300, "pinned async copy returned after %.1f us (want a few)", t);
  t = time_us([&] { cudaStreamSynchronize(s); });
  EXPECT(t >= 20 && t < 3000, "sync after pinned 1 MiB copy waited %.1f us (want ~40)", t);
  EXPECT(static_cast<char*>(dev)[kMiB - 1] == 9, "pinned copy done after sync");
  // A pageable async copy waits for the stream's earlier work.
  spin(2000000, s);
  t = time_us([&] { cudaMemcpyAsync(pageable.data(), dev, kMiB, cudaMemcpyDeviceToHost, s); });
  EXPECT(t >= 2000 && t < 7000, "pageable D2H behind a 2 ms kernel took %.1f us", t);
  EXPECT(pageable[5] == 9, "D2H copied");
  // Synchronous copy and memset.
  EXPECT(cudaMemset(dev, 3, kMiB) == cudaSuccess, "cudaMemset");
  EXPECT(cudaMemcpy(pageable.data(), dev, kMiB, cudaMemcpyDeviceToHost) == cudaSuccess, "cudaMemcpy");
  EXPECT(pageable[100] == 3, "memset then memcpy");
  // 2D copy: 4 rows of 8 bytes from pitch 16 to pitch 8.
  std::memset(dev, 0, 64);
  char rows[64];
  for (int i = 0; i < 64; ++i) rows[i] = static_cast<char>(i);
  EXPECT(cudaMemcpy2D(dev, 8, rows, 16, 8, 4, cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy2D");
  EXPECT(static_cast<char*>(dev)[8] == 16 && static_cast<char*>(dev)[31] == 55, "2D rows");
  // Symbols.
  int values[16] = {1, 2, 3};
  EXPECT(cudaMemcpyToSymbol(g_symbol, values, sizeof(values), 0, cudaMemcpyHostToDevice) == cudaSuccess, "to symbol");
  EXPECT(g_symbol[2] == 3, "symbol written");
  EXPECT(cudaMemcpyToSymbol(g_symbol, values, sizeof(values), 4, cudaMemcpyHostToDevice) == cudaErrorInvalidSymbol,
         "symbol overflow rejected");
  EXPECT(cudaStreamDestroy(s) == cudaSuccess, "destroy");
  EXPECT(cudaFreeHost(pinned) == cudaSuccess, "cudaFreeHost");
  EXPECT(cudaFree(dev) == cudaSuccess, "cudaFree");
}

void check_kernels_and_events() {
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  warm(s1);
  warm(s2);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  double begin = now_us();
  double t = time_us([&] {
    cudaEventRecord(start, s1);
    for (int i = 0; i < 10; ++i) spin(200000, s1);
    cudaEventRecord(stop, s1);
  });
  EXPECT(t < 1500, "10 launches took %.1f us", t);
  EXPECT(cudaEventQuery(stop) == cudaErrorNotReady, "event pending");
  EXPECT(cudaStreamQuery(s1) == cudaErrorNotReady, "stream busy");
  // s2 waits for s1's event, then runs a 1 ms kernel.
  cudaStreamWaitEvent(s2, stop, 0);
  spin(1000000, s2);
  t = time_us([&] { cudaEventSynchronize(stop); });
  EXPECT(t >= 1800 && t < 7000, "event sync waited %.1f us (want ~2000)", t);
  float ms = 0;
  EXPECT(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess, "elapsed");
  EXPECT(ms >= 1.95f && ms < 2.5f, "elapsed %.3f ms (want 2)", ms);
  cudaStreamSynchronize(s2);
  t = now_us() - begin;
  EXPECT(t >= 2900 && t < 8000, "s2 (1 ms after the 2 ms event) done after %.1f us (want ~3000)", t);
  // Other kernels take 5 µs.
  t = time_us([&] {
    for (int i = 0; i < 100; ++i)
      cudaLaunchKernel(reinterpret_cast<const void*>(&other_stub), dim3(1), dim3(1), nullptr, 0, s1);
    cudaStreamSynchronize(s1);
  });
  EXPECT(t >= 490 && t < 20000, "100 default kernels took %.1f us (want ~500)", t);
  // __cudaGetKernel handles launch too.
  cudaKernel_t k;
  EXPECT(__cudaGetKernel(&k, reinterpret_cast<const void*>(&spin_stub)) == cudaSuccess, "__cudaGetKernel");
  long long ns = 500000;
  void* args[] = {&ns};
  t = time_us([&] {
    __cudaLaunchKernel(k, dim3(1), dim3(1), args, 0, s1);
    cudaStreamSynchronize(s1);
  });
  EXPECT(t >= 490 && t < 20000, "__cudaLaunchKernel 0.5 ms took %.1f us", t);
  const char* name = nullptr;
  EXPECT(cudaFuncGetName(&name, reinterpret_cast<const void*>(&spin_stub)) == cudaSuccess &&
             std::strcmp(name, "_ZL14syncscope_spinx") == 0,
         "cudaFuncGetName");
  // Host functions run in order.
  static std::atomic<int> order{0};
  spin(300000, s1);
  cudaLaunchHostFunc(
      s1, [](void*) { order = 1; }, nullptr);
  EXPECT(order == 0, "host func not run before the kernel");
  cudaStreamSynchronize(s1);
  EXPECT(order == 1, "host func ran");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}

void check_legacy_stream() {
  cudaStream_t blocking, nonblocking;
  cudaStreamCreate(&blocking);
  cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking);
  warm(blocking);
  warm(nonblocking);
  spin(20000000, nonblocking);
  spin(1000000, blocking);
  spin(1000, nullptr);  // legacy: waits for `blocking`, not for `nonblocking`
  double begin = now_us();
  cudaStreamSynchronize(nullptr);
  double t = now_us() - begin;
  EXPECT(t >= 900, "legacy sync waited %.1f us (want ~1000: for the blocking stream)", t);
  EXPECT(cudaStreamQuery(nonblocking) == cudaErrorNotReady, "legacy sync did not wait for the non-blocking stream");
  cudaDeviceSynchronize();
  t = now_us() - begin;
  EXPECT(t >= 19900 && t < 40000, "device sync done after %.1f us (want ~20000: the non-blocking stream too)", t);
  // A blocking stream waits for earlier legacy work.
  spin(1000000, cudaStreamLegacy);
  spin(1000, blocking);
  t = time_us([&] { cudaStreamSynchronize(blocking); });
  EXPECT(t >= 900 && t < 20000, "blocking stream waited %.1f us for legacy work (want ~1000)", t);
  // cudaFree synchronizes the device.
  void* p;
  cudaMalloc(&p, 64);
  spin(1000000, nonblocking);
  t = time_us([&] { cudaFree(p); });
  EXPECT(t >= 900 && t < 20000, "cudaFree waited %.1f us (want ~1000)", t);
  t = time_us([&] { cudaMalloc(&p, 64); });
  EXPECT(t >= 19 && t < 2000, "cudaMalloc took %.1f us (want ~20)", t);
  cudaFree(p);
  cudaStreamDestroy(blocking);
  cudaStreamDestroy(nonblocking);
}

void check_graphs() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  void* dev;
  cudaMalloc(&dev, 64);
  static int host_runs = 0;
  EXPECT(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess, "begin capture");
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(s, &status);
  EXPECT(status == cudaStreamCaptureStatusActive, "capturing");
  double t = time_us([&] {
    for (int i = 0; i < 3; ++i) spin(500000, s);
    cudaMemsetAsync(dev, 5, 64, s);
    cudaLaunchHostFunc(
        s, [](void*) { ++host_runs; }, nullptr);
  });
  EXPECT(cudaStreamQuery(s) == cudaSuccess, "captured work does not run");
  EXPECT(static_cast<char*>(dev)[0] != 5 && host_runs == 0, "captured work did not execute");
  EXPECT(cudaStreamSynchronize(s) == cudaErrorStreamCaptureUnsupported, "no sync during capture");
  cudaGraph_t graph;
  EXPECT(cudaStreamEndCapture(s, &graph) == cudaSuccess, "end capture");
  cudaStreamIsCapturing(s, &status);
  EXPECT(status == cudaStreamCaptureStatusNone, "capture over");
  cudaGraphExec_t exec;
  EXPECT(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess, "instantiate");
  t = time_us([&] {
    cudaGraphLaunch(exec, s);
    cudaGraphLaunch(exec, s);
  });
  EXPECT(t < 1500, "graph launches returned after %.1f us", t);
  t = time_us([&] { cudaStreamSynchronize(s); });
  EXPECT(t >= 2900 && t < 8000, "two replays of 3 x 0.5 ms took %.1f us (want ~3000)", t);
  EXPECT(static_cast<char*>(dev)[0] == 5 && host_runs == 2, "replayed work executed (host runs %d)", host_runs);
  EXPECT(cudaGraphExecDestroy(exec) == cudaSuccess && cudaGraphDestroy(graph) == cudaSuccess, "destroy graph");
  cudaFree(dev);
  cudaStreamDestroy(s);
}

void check_pointers_and_errors() {
  void *dev, *pinned, *managed;
  cudaMalloc(&dev, 256);
  cudaHostAlloc(&pinned, 256, cudaHostAllocDefault);
  cudaMallocManaged(&managed, 256, cudaMemAttachGlobal);
  std::vector<char> registered(4096), pageable(64);
  EXPECT(cudaHostRegister(registered.data(), registered.size(), 0) == cudaSuccess, "register");
  EXPECT(cudaHostRegister(registered.data() + 8, 8, 0) == cudaErrorHostMemoryAlreadyRegistered, "overlap");
  cudaPointerAttributes a;
  auto type = [&](const void* p) {
    cudaPointerGetAttributes(&a, p);
    return a.type;
  };
  EXPECT(type(static_cast<char*>(dev) + 100) == cudaMemoryTypeDevice, "device");
  EXPECT(type(pinned) == cudaMemoryTypeHost, "pinned");
  EXPECT(type(registered.data() + 4095) == cudaMemoryTypeHost, "registered");
  EXPECT(type(managed) == cudaMemoryTypeManaged, "managed");
  EXPECT(type(pageable.data()) == cudaMemoryTypeUnregistered, "pageable");
  EXPECT(cudaHostUnregister(registered.data()) == cudaSuccess, "unregister");
  EXPECT(type(registered.data()) == cudaMemoryTypeUnregistered, "unregistered again");

  auto bad_stream = reinterpret_cast<cudaStream_t>(0x1234);
  EXPECT(cudaStreamSynchronize(bad_stream) == cudaErrorInvalidResourceHandle, "bad stream");
  EXPECT(spin(1, bad_stream) == cudaErrorInvalidResourceHandle, "launch on bad stream");
  EXPECT(cudaGetLastError() == cudaErrorInvalidResourceHandle, "last error");
  EXPECT(cudaGetLastError() == cudaSuccess, "last error reset");
  EXPECT(cudaLaunchKernel(reinterpret_cast<const void*>(&check_graphs), dim3(1), dim3(1), nullptr, 0, nullptr) ==
             cudaErrorInvalidDeviceFunction,
         "unknown kernel");
  EXPECT(cudaFree(pageable.data()) == cudaErrorInvalidValue, "free of host memory");
  EXPECT(cudaFree(static_cast<char*>(dev) + 1) == cudaErrorInvalidValue, "free inside an allocation");
  EXPECT(cudaMemcpy(reinterpret_cast<void*>(0x10), pageable.data(), 8, cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
         "copy to a bad device pointer");
  EXPECT(cudaMemcpy(dev, pageable.data(), 1024, cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
         "copy past the allocation");
  EXPECT(cudaEventSynchronize(reinterpret_cast<cudaEvent_t>(0x99)) == cudaErrorInvalidResourceHandle, "bad event");
  EXPECT(cudaGraphLaunch(reinterpret_cast<cudaGraphExec_t>(0x99), nullptr) == cudaErrorInvalidValue, "bad exec");
  EXPECT(cudaStreamDestroy(bad_stream) == cudaErrorInvalidResourceHandle, "destroy bad stream");
  EXPECT(cudaGetDeviceCount(nullptr) == cudaErrorInvalidValue, "null out pointer");
  EXPECT(std::strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0, "error name");
  cudaDeviceProp prop;
  EXPECT(cudaGetDeviceProperties(&prop, 0) == cudaSuccess && std::strstr(prop.name, "simulated") &&
             prop.totalGlobalMem == (16ull << 30),
         "properties");
  EXPECT(syncscopeFakeCudaRuntime == 1, "marker");
  cudaFree(dev);
  cudaFree(managed);
  cudaFreeHost(pinned);
}

void check_threads_and_fork() {
  // Per-thread default streams run concurrently: 2 threads x 2 ms, timed
  // once both threads and their streams' workers run.
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  double elapsed[2] = {};
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i)
    threads.emplace_back([&, i] {
      long long ns = 0;
      void* args[] = {&ns};
      cudaLaunchKernel_ptsz(reinterpret_cast<const void*>(&spin_stub), dim3(1), dim3(1), args, 0, nullptr);
      cudaStreamSynchronize_ptsz(nullptr);
      ++ready;
      while (!go) std::this_thread::yield();
      double begin = now_us();
      ns = 2000000;
      cudaLaunchKernel_ptsz(reinterpret_cast<const void*>(&spin_stub), dim3(1), dim3(1), args, 0, nullptr);
      cudaStreamSynchronize_ptsz(nullptr);
      elapsed[i] = now_us() - begin;
    });
  while (ready < 2) std::this_thread::yield();
  double t = time_us([&] {
    go = true;
    for (auto& th : threads) th.join();
  });
  EXPECT(t >= 1900 && elapsed[0] < 3900 && elapsed[1] < 3900,
         "2 per-thread streams x 2 ms took %.1f us (%.0f, %.0f each; want ~2000: concurrent)", t, elapsed[0],
         elapsed[1]);
  // A forked child gets fresh workers; work pending in the parent does not hang it.
  cudaStream_t s;
  cudaStreamCreate(&s);
  spin(50000000, s);  // 50 ms, still running at fork
  pid_t pid = fork();
  if (pid == 0) {
    void* dev;
    int host[4] = {1, 2, 3, 4}, back[4] = {};
    bool ok = cudaMalloc(&dev, sizeof(host)) == cudaSuccess &&
              cudaMemcpy(dev, host, sizeof(host), cudaMemcpyHostToDevice) == cudaSuccess &&
              spin(1000, nullptr) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess &&
              cudaMemcpy(back, dev, sizeof(back), cudaMemcpyDeviceToHost) == cudaSuccess && back[3] == 4 &&
              cudaFree(dev) == cudaSuccess;
    _exit(ok ? 0 : 3);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "forked child status %d", status);
  // Exiting with work queued neither hangs nor crashes.
  pid = fork();
  if (pid == 0) {
    cudaStream_t c;
    cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking);
    for (int i = 0; i < 100; ++i) spin(10000000, c);
    std::exit(0);
  }
  t = time_us([&] { waitpid(pid, &status, 0); });
  EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0 && t < 500000, "exit with queued work: status %d, %.0f us",
         status, t);
  cudaStreamDestroy(s);
}

}  // namespace

int main(int argc, char** argv) {
  // fakecuda_selftest [check...]: all checks, or those named.
  struct Check {
    const char* name;
    void (*run)();
  } checks[] = {{"copies", check_copies}, {"kernels", check_kernels_and_events},   {"legacy", check_legacy_stream},
                {"graphs", check_graphs}, {"pointers", check_pointers_and_errors}, {"threads", check_threads_and_fork}};
  register_kernels();
  for (const Check& c : checks) {
    bool wanted = argc == 1;
    for (int i = 1; i < argc; ++i) wanted |= std::strcmp(argv[i], c.name) == 0;
    if (wanted) c.run();
  }
  std::printf("fake_selftest: %s (%d failures)\n", g_failures ? "FAILED" : "ok", g_failures);
  return g_failures ? 1 : 0;
}
