// A do-nothing libcuda.so.1 for measuring the driver hooks alone (a Triton
// launch fetched with dlsym). -Bsymbolic: syncscopeNullDriverLaunch returns
// this library's own cuLaunchKernel, never the preload's.
#include <cuda.h>

extern "C" {
__attribute__((visibility("default"))) CUresult cuLaunchKernel(CUfunction, unsigned int, unsigned int, unsigned int,
                                                               unsigned int, unsigned int, unsigned int, unsigned int,
                                                               CUstream, void**, void**) {
  return CUDA_SUCCESS;
}
__attribute__((visibility("default"))) void* syncscopeNullDriverLaunch() {
  return reinterpret_cast<void*>(&cuLaunchKernel);
}
}
