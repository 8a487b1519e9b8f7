// Kernels the fake runtime knows: registered by nvcc's host code at program
// start (__cudaRegisterFunction), launched by handle or host stub.
#pragma once

#include <cstdint>

namespace fakecuda {

// How long a launch of this kernel runs: `syncscope_spin` kernels take their
// duration in ns as their first argument; any other kernel runs 5 µs.
uint64_t kernel_duration_ns(const void* kernel_or_stub, void** args);

}  // namespace fakecuda
