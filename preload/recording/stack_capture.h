// Native stack capture for events worth reporting (never for launches).
// libunwind is loaded with dlopen(RTLD_LOCAL): as a NEEDED dependency its
// _Unwind_* exports would replace libgcc's C++ exception unwinder for the
// whole target process. Without libunwind, glibc's backtrace() (libgcc's
// _Unwind_Backtrace) does the walk.
#pragma once

#include <cstdint>

namespace syncscope::preload {

// Loads the unwinder. Call once, early (library constructor).
void stack_capture_init();
// "libunwind" or "libgcc" (for the trace's process info).
const char* stack_unwinder_name();

// Fills pcs[0..max) innermost first, starting at the first frame outside
// libsyncscope.so (unless skip_own_frames is false); returns the depth (0 if
// unwinding is unavailable).
uint32_t capture_stack(uint64_t* pcs, uint32_t max, bool skip_own_frames = true);

}  // namespace syncscope::preload
