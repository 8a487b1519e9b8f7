// Runs .item()-like steps (about 1 ms each) for a while: a long job to
// interrupt, kill or attach to. Exits with `exit_code`, so a test can tell
// its own status from anything syncscope could have caused.
//   long_loop [seconds=60] [exit_code=0]
#include <chrono>

#include "common.cuh"

__attribute__((noinline)) void long_loop_step(float* device, float* pinned, cudaStream_t s) {
  syncscope_spin<<<1, 1, 0, s>>>(1000000);
  CHECK(cudaMemcpyAsync(pinned, device, sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  KEEP_FRAME();
}

int main(int argc, char** argv) {
  int seconds = iterations(argc, argv, 60);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *device, *pinned;
  CHECK(cudaMalloc(&device, sizeof(float)));
  CHECK(cudaMallocHost(&pinned, sizeof(float)));
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  long steps = 0;
  while (std::chrono::steady_clock::now() < end) {
    long_loop_step(device, pinned, s);
    ++steps;
  }
  std::printf("long_loop: %ld steps\n", steps);
  return argc > 2 ? std::atoi(argv[2]) : 0;
}
