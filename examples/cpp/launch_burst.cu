// A shared library for Python programs (ctypes) that launch kernels with the
// GIL released, as PyTorch's C++ does: a burst of launches, a read-back
// sync, another burst, in one call. The sync's event waits for its Python
// frames until the GIL is taken back, after the second burst reached the
// ring: the recorder must still place it between the bursts.
//   ctypes.CDLL("liblaunch_burst.so").syncscope_launch_burst(before, after)
// syncscope_launch_kernels(n) launches n kernels and nothing else (a forward
// pass, for tests/integration/python/manual_update_loop.py).
#include "common.cuh"

static __global__ void burst_kernel_a(float* x) {
  if (x != nullptr) x[threadIdx.x] += 1.0f;
}
static __global__ void burst_kernel_b(float* x) {
  if (x != nullptr) x[threadIdx.x] *= 2.0f;
}

extern "C" __attribute__((visibility("default"))) int syncscope_launch_burst(int before, int after) {
  for (int i = 0; i < before; ++i) {
    if (i % 2 == 0) burst_kernel_a<<<1, 32>>>(nullptr); else burst_kernel_b<<<1, 32>>>(nullptr);
  }
  if (cudaStreamSynchronize(nullptr) != cudaSuccess) return 1;  // the read-back
  for (int i = 0; i < after; ++i) {
    if (i % 2 == 0) burst_kernel_b<<<1, 32>>>(nullptr); else burst_kernel_a<<<1, 32>>>(nullptr);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

extern "C" __attribute__((visibility("default"))) int syncscope_launch_kernels(int n) {
  for (int i = 0; i < n; ++i) {
    if (i % 3 == 0) burst_kernel_a<<<1, 32>>>(nullptr); else burst_kernel_b<<<1, 32>>>(nullptr);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
