// CUDA runtime entry points that exist in libcudart.so.13 but that the public
// headers declare only under --default-stream per-thread or in crt/ headers
// that pull in device code. Shared by the hooks and the fake runtime.
#pragma once

#include <cuda_runtime_api.h>

extern "C" {
cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);
cudaError_t cudaLaunchKernel_ptsz(const void*, dim3, dim3, void**, size_t, cudaStream_t);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t*, const void*, void**);
cudaError_t cudaMemcpyAsync_ptsz(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t);
}
