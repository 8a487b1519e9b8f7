// The body every recording wrapper shares, runtime (hooks_runtime.cpp) and
// driver (hooks_driver.cpp) alike: pass straight through unless recording
// (and not already inside a hook), else time the real call and push one
// Event describing it. `real` is the resolved real function; `result_type`
// is cudaError_t or CUresult (0 is success in both).
#pragma once

#include "preload/in_hook.h"

#define SS_RECORDED_CALL(result_type, api_id, stack, args, describe)             \
  do {                                                                            \
    if (!recording() || tls_in_hook) return real args;                            \
    ThreadState* thread = current_thread_state();                                 \
    if (thread == nullptr) return real args;                                      \
    InHookScope in_hook;                                                          \
    CallRecord r(api_id, stack);                                                  \
    describe;                                                                     \
    r.begin();                                                                    \
    result_type result = real args;                                               \
    r.end(thread, static_cast<int>(result));                                      \
    return result;                                                                \
  } while (0)
