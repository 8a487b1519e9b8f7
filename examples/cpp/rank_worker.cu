// One rank of a data-parallel job, for the multi-process report: each step
// launches kernels and reads the loss back once; the straggler rank
// (RANK == SYNCSCOPE_STRAGGLER_RANK, default 1) also reads back three
// metrics every step, so it syncs four times per step instead of once.
//   rank_worker [steps=100]
#include <cstdlib>
#include <cstring>

#include "common.cuh"

__attribute__((noinline)) float read_back(const float* device_value, float* pinned, cudaStream_t s) {
  CHECK(cudaMemcpyAsync(pinned, device_value, sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  KEEP_FRAME();
  return *pinned;
}

__attribute__((noinline)) float log_metrics(const float* device_value, float* pinned, cudaStream_t s) {
  float sum = 0;
  for (int i = 0; i < 3; ++i) sum += read_back(device_value, pinned, s);
  KEEP_FRAME();
  return sum;
}

int main(int argc, char** argv) {
  int steps = iterations(argc, argv, 100);
  const char* rank = std::getenv("RANK");
  const char* straggler = std::getenv("SYNCSCOPE_STRAGGLER_RANK");
  bool slow = rank != nullptr && std::strcmp(rank, straggler ? straggler : "1") == 0;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *value, *pinned;
  CHECK(cudaMalloc(&value, sizeof(float)));
  CHECK(cudaMallocHost(&pinned, sizeof(float)));
  float total = 0;
  for (int step = 0; step < steps; ++step) {
    for (int k = 0; k < 3; ++k) syncscope_spin<<<1, 1, 0, s>>>(20000);
    total += read_back(value, pinned, s);
    if (slow) total += log_metrics(value, pinned, s);
  }
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(value));
  CHECK(cudaStreamDestroy(s));
  std::printf("rank_worker: rank %s, %d steps%s\n", rank ? rank : "-", steps, slow ? " (straggler)" : "");
  return 0;
}
