// The driver API wrappers (preload/hooks/hooks_driver.cpp, one per SS_DRIVER_API
// row of trace/cuda_api_table.def) and how the entry-point hooks hand them
// out in place of the real functions.
#pragma once

#include <cstdint>

namespace syncscope::preload {

// The wrapper to hand out for `real`, a driver function obtained under the
// name `requested` (dlsym: exact ABI name; cuGetProcAddress: base name plus
// version and flags). Returns `real` itself when it is not a function
// syncscope records, when it cannot be told which ABI `real` has, or when
// it is already a wrapper. Never allocates; safe to call from any thread.
void* driver_wrapper_for(const char* requested, void* real, int cuda_version, uint64_t flags, bool exact_name);

// Resolves the real driver function of row `index` (core/real_function.h) and
// claims the row for it, unless a pointer handed out through an entry point
// claimed it first; returns the row's real function.
void* resolve_real_driver_function(int index);

}  // namespace syncscope::preload
