// The CUDA driver hooks: one wrapper per SS_DRIVER_API row of
// trace/cuda_api_table.def. They are exported (programs linked to libcuda
// bind to them) and handed out by the entry-point hooks
// (hooks_entry_points.cpp) to code that fetches driver functions at run
// time: Triton's dlsym, the runtime's cuGetProcAddress_v2, PyTorch's
// cudaGetDriverEntryPointByVersion. A driver call made inside a recorded
// runtime call (tls_in_hook) passes straight through, so nothing is counted
// twice.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstring>

#include "preload/recording/call_record.h"
#include "preload/hooks/driver_hooks.h"
#include "preload/hooks/hook_body.h"
#include "preload/core/real_function.h"
#include "preload/recording/recorder.h"
#include "preload/recording/thread_state.h"
#include "trace/api.h"

#define SS_EXPORT __attribute__((visibility("default")))

namespace syncscope::preload {
namespace {

enum DriverIndex : int {
#define SS_API(...)
#define SS_DRIVER_API(name, ...) kDriver_##name,
#include "trace/cuda_api_table.def"
#undef SS_DRIVER_API
#undef SS_API
  kDriverCount
};

// The real functions, by row; filled on first use or when a real pointer is
// handed out through an entry point.
std::atomic<void*> g_real[kDriverCount];

inline void* ptr(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }
// CUdeviceptr and void* are both 64 bits on every platform CUDA supports.
static_assert(sizeof(CUdeviceptr) == sizeof(void*));
inline void** out_ptr(CUdeviceptr* p) { return reinterpret_cast<void**>(p); }

__attribute__((noinline, cold)) void* resolve(int index) { return resolve_real_driver_function(index); }

}  // namespace
}  // namespace syncscope::preload

#define SS_API(...)
#define SS_DRIVER_API(name, family, stack, params, args, describe)               \
  extern "C" SS_EXPORT CUresult name params {                                    \
    using namespace ::syncscope::preload;                                        \
    using Fn = CUresult(*) params;                                               \
    void* raw = g_real[kDriver_##name].load(std::memory_order_acquire);          \
    if (__builtin_expect(raw == nullptr, 0)) raw = resolve(kDriver_##name);      \
    if (raw == nullptr) return CUDA_ERROR_NOT_FOUND;                             \
    Fn real = reinterpret_cast<Fn>(raw);                                         \
    SS_RECORDED_CALL(CUresult, ::syncscope::ApiId::name, stack, args, describe); \
  }
#include "trace/cuda_api_table.def"
#undef SS_DRIVER_API
#undef SS_API

namespace syncscope::preload {
namespace {

struct DriverRow {
  const char* name;
  void* wrapper;
};

const DriverRow kRows[kDriverCount] = {
#define SS_API(...)
#define SS_DRIVER_API(name, ...) {#name, reinterpret_cast<void*>(&::name)},
#include "trace/cuda_api_table.def"
#undef SS_DRIVER_API
#undef SS_API
};

int row_named(const char* name) {
  for (int i = 0; i < kDriverCount; ++i) {
    if (std::strcmp(kRows[i].name, name) == 0) return i;
  }
  return -1;
}

// Claims row i for `real`: true when the row's real function is (now) that
// pointer, so its wrapper forwards to exactly it.
bool claim(int i, void* real) {
  void* expected = nullptr;
  if (g_real[i].compare_exchange_strong(expected, real, std::memory_order_acq_rel)) return true;
  return expected == real;
}

// Row whose libcuda export is `real` (pointer identity: the surest way to
// know the ABI of a pointer from cuGetProcAddress).
int row_exporting(void* real) {
  void* libcuda = loaded_libcuda();
  DlsymFn lookup = real_dlsym();
  if (libcuda == nullptr || lookup == nullptr) return -1;
  for (int i = 0; i < kDriverCount; ++i) {
    if (g_real[i].load(std::memory_order_acquire) == real) return i;
    if (lookup(libcuda, kRows[i].name) == real) return i;
  }
  return -1;
}

// cuGetProcAddress names the function without its ABI suffix ("cuMemAlloc")
// and picks the ABI from the version and flags. For current versions our
// rows are the current ABIs, so the name with "_v2" and the per-thread
// suffix finds the row.
int row_for_request(const char* requested, int cuda_version, uint64_t flags) {
  if (cuda_version < 12000 || std::strlen(requested) > 80) return -1;
  const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  static const char* const kPerThread[] = {"_v2_ptds", "_v2_ptsz", "_ptds", "_ptsz"};
  static const char* const kLegacy[] = {"_v2", ""};
  const char* const* suffixes = per_thread ? kPerThread : kLegacy;
  int n = per_thread ? 4 : 2;
  char name[96];
  for (int k = 0; k < n; ++k) {
    std::strcpy(name, requested);
    std::strcat(name, suffixes[k]);
    int i = row_named(name);
    if (i >= 0) return i;
  }
  return -1;
}

}  // namespace

void* resolve_real_driver_function(int index) {
  if (index < 0 || index >= kDriverCount) return nullptr;
  void* fn = find_real_function(RealLibrary::kCudaDriver, kRows[index].name);
  if (fn == nullptr) return nullptr;
  void* expected = nullptr;
  g_real[index].compare_exchange_strong(expected, fn, std::memory_order_acq_rel);
  return g_real[index].load(std::memory_order_acquire);
}

void* driver_wrapper_for(const char* requested, void* real, int cuda_version, uint64_t flags, bool exact_name) {
  if (real == nullptr || requested == nullptr) return real;
  for (const DriverRow& row : kRows) {
    if (row.wrapper == real) return real;  // already ours
  }
  int i = exact_name ? row_named(requested) : row_exporting(real);
  if (i < 0 && !exact_name) i = row_for_request(requested, cuda_version, flags);
  if (i < 0 || !claim(i, real)) return real;
  return kRows[i].wrapper;
}

}  // namespace syncscope::preload
