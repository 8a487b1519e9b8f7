// Built with --default-stream per-thread: here the runtime API names resolve
// to their _ptsz twins (cudaMemcpyAsync -> cudaMemcpyAsync_ptsz, <<<>>> ->
// __cudaLaunchKernel_ptsz, ...). Part of api_tour.
#include "common.cuh"

void tour_per_thread_stream(void* dst, const void* src, size_t bytes) {
  syncscope_spin<<<1, 1>>>(2000);
  long long ns = 2000;
  void* args[] = {&ns};
  CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(syncscope_spin), dim3(1), dim3(1), args, 0, nullptr));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(1);
  CHECK(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(syncscope_spin), args));
  CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, nullptr));
  CHECK(cudaStreamSynchronize(nullptr));
}
