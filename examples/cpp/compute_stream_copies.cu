// Copies that cannot overlap compute: H2D batches queued on the same stream
// as the kernels, and work on the legacy default stream while a blocking
// stream is busy (the legacy stream serialises with it).
//   compute_stream_copies [steps=100]
// Calls: N x cudaMemcpyAsync (256 KiB, H2D, pinned, stream s), 2N launches on s,
// N launches on the legacy stream (0), 1 cudaDeviceSynchronize.
#include "common.cuh"

constexpr size_t kBatch = 256 << 10;

int main(int argc, char** argv) {
  int steps = iterations(argc, argv, 100);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));  // blocking: serialises with the legacy stream
  void *device, *pinned;
  CHECK(cudaMalloc(&device, kBatch));
  CHECK(cudaMallocHost(&pinned, kBatch));
  for (int step = 0; step < steps; ++step) {
    CHECK(cudaMemcpyAsync(device, pinned, kBatch, cudaMemcpyHostToDevice, s));
    syncscope_spin<<<1, 1, 0, s>>>(20000);
    syncscope_spin<<<1, 1, 0, s>>>(20000);
    syncscope_spin<<<1, 1>>>(5000);  // legacy default stream
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
  CHECK(cudaStreamDestroy(s));
  std::printf("compute_stream_copies: %d steps\n", steps);
  return 0;
}
