// A fresh device buffer every step: cudaMalloc and cudaFree (which
// synchronises the whole device) in the hot loop.
//   alloc_churn_loop [steps=200]
// Calls: N x cudaMalloc (4 MiB), N x cudaFree, N launches.
#include "common.cuh"

constexpr size_t kBuffer = 4 << 20;

__attribute__((noinline)) void step_with_fresh_buffer() {
  void* buffer;
  CHECK(cudaMalloc(&buffer, kBuffer));
  syncscope_spin<<<1, 1>>>(10000);
  CHECK(cudaFree(buffer));
  KEEP_FRAME();
}

int main(int argc, char** argv) {
  int steps = iterations(argc, argv, 200);
  for (int step = 0; step < steps; ++step) step_with_fresh_buffer();
  std::printf("alloc_churn_loop: %d malloc/free pairs of %zu bytes\n", steps, kBuffer);
  return 0;
}
