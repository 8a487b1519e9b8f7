// Built with -fsanitize=address: a read-back every step (a hidden sync),
// through the runtime API only (no kernels: a host compiler builds it).
//   asan_cuda_program STEPS
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__attribute__((noinline)) float read_back(const float* device, float* host, cudaStream_t s) {
  cudaMemcpyAsync(host, device, sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);  // the hidden sync
  return *host;
}

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 50;
  cudaStream_t s;
  float* device;
  float* host;
  if (cudaStreamCreate(&s) != cudaSuccess || cudaMalloc(reinterpret_cast<void**>(&device), 4096) != cudaSuccess ||
      cudaMallocHost(reinterpret_cast<void**>(&host), sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "asan_cuda_program: CUDA setup failed\n");
    return 1;
  }
  std::vector<float> heap(256, 1.0f);  // ASan's own allocator at work
  float sum = 0;
  for (int i = 0; i < steps; ++i) {
    cudaMemsetAsync(device, 0, 4096, s);
    sum += read_back(device, host, s) + heap[static_cast<size_t>(i) % heap.size()];
  }
  std::printf("asan_cuda_program: %d steps, sum %g\n", steps, sum);
  return 7;  // its own status, which `syncscope run` must pass on
}
