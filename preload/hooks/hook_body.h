// The body every recording wrapper shares, runtime (hooks_runtime.cpp) and
// driver (hooks_driver.cpp) alike: pass straight through unless recording
// (and not already inside a hook), else time the real call and push one
// Event describing it. `real` is the resolved real function; `result_type`
// is cudaError_t or CUresult (0 is success in both).
//
// The one place the in-hook flag (in_hook.h) is set and cleared by hand
// rather than with InHookScope: nothing returns between the two, and a
// destructor would give every wrapper an exception landing pad, 3 to 10
// more instructions on the launch path (measured with callgrind on
// bench/hook_overhead_bench).
#pragma once

#include "preload/core/in_hook.h"

#define SS_RECORDED_CALL(result_type, api_id, stack, args, describe) \
  do {                                                               \
    if (!recording() || tls_in_hook) return real args;               \
    ThreadState* thread = current_thread_state();                    \
    if (thread == nullptr) return real args;                         \
    tls_in_hook = true;                                              \
    CallRecord r(api_id, stack);                                     \
    describe;                                                        \
    r.begin(thread);                                                 \
    result_type result = real args;                                  \
    r.end(thread, static_cast<int>(result));                         \
    tls_in_hook = false;                                             \
    return result;                                                   \
  } while (0)
