// Host-to-device batches from pageable (malloc'd) memory: cudaMemcpyAsync
// cannot be asynchronous, the host blocks for every copy.
//   pageable_copy_loop [steps=200]
// Calls: N x cudaMemcpyAsync (1 MiB, H2D, pageable, stream s), N launches.
#include <cstdlib>
#include <cstring>

#include "common.cuh"

constexpr size_t kBatch = 1 << 20;

__attribute__((noinline)) void upload_batch_pageable(void* device, const void* host, cudaStream_t s) {
  CHECK(cudaMemcpyAsync(device, host, kBatch, cudaMemcpyHostToDevice, s));
  KEEP_FRAME();
}

int main(int argc, char** argv) {
  int steps = iterations(argc, argv, 200);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void* device;
  CHECK(cudaMalloc(&device, kBatch));
  void* host = std::malloc(kBatch);
  std::memset(host, 1, kBatch);
  for (int step = 0; step < steps; ++step) {
    upload_batch_pageable(device, host, s);
    syncscope_spin<<<1, 1, 0, s>>>(10000);
  }
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaFree(device));
  std::free(host);
  std::printf("pageable_copy_loop: %d pageable copies of %zu bytes\n", steps, kBatch);
  return 0;
}
