// Shared helpers of the CUDA C++ examples. They run unchanged on a real GPU
// and on the fake runtime of tests/fakecuda (which reads syncscope_spin's
// argument as the time to simulate).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                                \
  do {                                                                                                             \
    cudaError_t check_error_ = (call);                                                                             \
    if (check_error_ != cudaSuccess) {                                                                             \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(check_error_)); \
      std::exit(1);                                                                                                \
    }                                                                                                              \
  } while (0)

// Busy-waits about `ns` nanoseconds on the GPU: a kernel of known length.
// static: each translation unit registers its own copy.
static __global__ void syncscope_spin(long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (static_cast<long long>(now - start) < ns);
}

inline int iterations(int argc, char** argv, int fallback) { return argc > 1 ? std::atoi(argv[1]) : fallback; }

// Keeps a call inside a noinline function on the stack (no tail call).
#define KEEP_FRAME() asm volatile("" ::: "memory")
