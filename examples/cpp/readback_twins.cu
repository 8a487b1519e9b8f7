// Issue 27's two loops, each as a broken/fixed twin: host work, then four
// kernels on the legacy default stream, then the step's value read back.
// The broken twin reads it every step (a device-to-host copy and a stream
// sync: the hidden sync); the fixed one reads it every 50 steps. What fixing
// it saves is the difference of the twins' steps; the broken twin's
// recording predicts it (docs/what-if.md).
//   readback_twins gpu|host broken|fixed|bool|mask [steps=300]
//     gpu:  300 µs of host work, 4 x 400 µs kernels (the GPU is the bottleneck)
//     host: 2 ms of host work, 4 x 100 µs kernels (the host is)
// `bool` is the broken twin with its value read as PyTorch's `if t:` reads
// it, inside at::native::is_nonzero: the report names the operation from
// that frame, and the prediction assumes its hint's fix (the decision made
// on the GPU: the read-back goes, the statement stays) instead of reading
// every N steps (tests/integration/findings_test.cpp). `mask` reads it
// inside at::native::nonzero_cuda, as x[mask] does: a fixed shape instead.
// Prints `readback_twins: MODE VARIANT step_us=M`: the mean step after the
// first 20, up to the GPU finishing the last (a host that runs ahead of the
// GPU has not finished its steps until the GPU has).
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "common.cuh"

namespace {

uint64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The host's own work, as Python and the data pipeline would be. Slept, not
// spun: on the fake runtime the simulated GPU is a thread that needs a core
// of its own, and a CI machine has two.
__attribute__((noinline)) void host_work(uint64_t ns) {
  std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
  KEEP_FRAME();
}

__attribute__((noinline)) void compute(long long kernel_ns) {
  for (int k = 0; k < 4; ++k) syncscope_spin<<<1, 1, 0, 0>>>(kernel_ns);
  KEEP_FRAME();
}

// The value read back, as `.item()` does: a copy into host memory, then a wait.
__attribute__((noinline)) float read_back(const float* device, float* pinned) {
  CHECK(cudaMemcpyAsync(pinned, device, sizeof(float), cudaMemcpyDeviceToHost, 0));
  CHECK(cudaStreamSynchronize(0));
  KEEP_FRAME();
  return *pinned;
}

}  // namespace

// PyTorch's names, so that the symbolised frame reads as `if t:`'s.
namespace at {
struct Tensor {
  const float* device;
  float* pinned;
};
namespace native {
__attribute__((noinline)) bool is_nonzero(const Tensor& t) {
  const bool nonzero = read_back(t.device, t.pinned) != 0;
  KEEP_FRAME();
  return nonzero;
}
// x[mask] reads the count of selected elements here.
__attribute__((noinline)) long nonzero_cuda(const Tensor& t) {
  const long count = read_back(t.device, t.pinned) != 0 ? 1 : 0;
  KEEP_FRAME();
  return count;
}
}  // namespace native
}  // namespace at

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: readback_twins gpu|host broken|fixed|bool|mask [steps]\n");
    return 2;
  }
  const bool gpu_bound = std::strcmp(argv[1], "gpu") == 0;
  const bool as_bool = std::strcmp(argv[2], "bool") == 0;
  const bool as_mask = std::strcmp(argv[2], "mask") == 0;
  const bool broken = as_bool || as_mask || std::strcmp(argv[2], "broken") == 0;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 300;
  const uint64_t host_ns = gpu_bound ? 300000 : 2000000;
  const long long kernel_ns = gpu_bound ? 400000 : 100000;
  float *device, *pinned;
  CHECK(cudaMalloc(&device, sizeof(float)));
  CHECK(cudaMallocHost(&pinned, sizeof(float)));
  std::vector<uint64_t> ends;
  float total = 0;
  for (int step = 0; step < steps; ++step) {
    host_work(host_ns);
    compute(kernel_ns);
    // The fixed twin reads every 50 steps, and at the end of the warm-up, so
    // that the steps measured start with the GPU caught up in both twins.
    if (as_bool) {
      total += at::native::is_nonzero(at::Tensor{device, pinned}) ? 1.0f : 0.0f;
    } else if (as_mask) {
      total += static_cast<float>(at::native::nonzero_cuda(at::Tensor{device, pinned}));
    } else if (broken || step % 50 == 49 || step == 19) {
      total += read_back(device, pinned);
    }
    ends.push_back(now_ns());
  }
  total += read_back(device, pinned);  // the last value, and the GPU done
  const uint64_t done = now_ns();
  const double step_us = static_cast<double>(done - ends[19]) / (steps - 20) / 1000.0;
  std::printf("readback_twins: %s %s step_us=%.1f (%g)\n", argv[1], argv[2], step_us, total);
  return 0;
}
