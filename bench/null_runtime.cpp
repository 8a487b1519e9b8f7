// A do-nothing libcudart.so.13 for measuring the hooks alone: every entry
// point the benchmark calls returns at once, so the time the benchmark sees
// through LD_PRELOAD minus the time of a direct call is syncscope's own cost.
#include <cuda_runtime_api.h>

extern "C" {
__attribute__((visibility("default"))) cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void**, size_t,
                                                                      cudaStream_t) {
  return cudaSuccess;
}
__attribute__((visibility("default"))) cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
__attribute__((visibility("default"))) cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
__attribute__((visibility("default"))) cudaError_t cudaMemcpyAsync(void*, const void*, size_t, cudaMemcpyKind,
                                                                   cudaStream_t) {
  return cudaSuccess;
}
__attribute__((visibility("default"))) cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void*) {
  a->type = cudaMemoryTypeUnregistered;
  return cudaSuccess;
}
__attribute__((visibility("default"))) cudaError_t cudaGetLastError() { return cudaSuccess; }
}
