// The CUDA runtime hooks: one exported wrapper per row of
// trace/cuda_api_table.def. Each wrapper forwards to the real runtime and,
// while recording, times the call and pushes one Event into the calling
// thread's ring. The preload's own CUDA calls (tls_in_hook) and calls made
// when recording is off pass straight through.
#include <cuda_runtime_api.h>

#include <atomic>

#include "preload/recording/call_record.h"
#include "preload/hooks/cuda_private_api.h"
#include "preload/hooks/hook_body.h"
#include "preload/core/real_function.h"
#include "preload/recording/recorder.h"
#include "preload/recording/thread_state.h"
#include "trace/api.h"

#define SS_EXPORT __attribute__((visibility("default")))

#define SS_API(name, family, stack, params, args, describe)                         \
  extern "C" SS_EXPORT cudaError_t name params {                                    \
    using namespace ::syncscope::preload;                                           \
    using Fn = cudaError_t(*) params;                                               \
    static std::atomic<void*> real_slot{nullptr};                                   \
    void* raw = real_function(real_slot, RealLibrary::kCudaRuntime, #name);         \
    if (raw == nullptr) return cudaErrorSharedObjectSymbolNotFound;                 \
    Fn real = reinterpret_cast<Fn>(raw);                                            \
    SS_RECORDED_CALL(cudaError_t, ::syncscope::ApiId::name, stack, args, describe); \
  }
#define SS_DRIVER_API(...)
#include "trace/cuda_api_table.def"
#undef SS_DRIVER_API
#undef SS_API
