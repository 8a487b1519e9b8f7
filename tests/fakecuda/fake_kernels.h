// Kernels and __device__ variables the fake runtime knows: registered by
// nvcc's host code at program start (__cudaRegisterFunction,
// __cudaRegisterVar), launched by handle or host stub.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fakecuda {

// Whether this is a registered kernel (host stub or cudaKernel_t handle).
bool known_kernel(const void* kernel_or_stub);
// How long a launch of this kernel runs: `syncscope_spin` kernels take their
// duration in ns as their first argument (a long long); any other kernel
// runs 5 µs.
uint64_t kernel_duration_ns(const void* kernel_or_stub, void** args);
// The kernel's (mangled) device name, or nullptr.
const char* kernel_name(const void* kernel_or_stub);
// Where `count` bytes at `offset` of a registered __device__ variable live
// (its host shadow); nullptr if the symbol is unknown or the range exceeds it.
void* symbol_address(const void* symbol, size_t offset, size_t count);
void reset_registration_after_fork();

}  // namespace fakecuda
