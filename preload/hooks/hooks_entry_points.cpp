// The ways software fetches driver functions at run time, interposed so
// that what it gets back is a recording wrapper (preload/hooks/hooks_driver.cpp):
//   dlsym(handle_of_libcuda, "cuLaunchKernel")       Triton's launchers
//   cuGetProcAddress(_v2)("cuMemAlloc", ...)          the runtime itself
//   cudaGetDriverEntryPoint(ByVersion)("cuMemMap")   PyTorch's expandable segments
// None of these records an event; each only swaps the pointer it returns.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <atomic>
#include <cstring>

#include "preload/hooks/driver_hooks.h"
#include "preload/core/load_mode.h"
#include "preload/core/real_function.h"

#define SS_EXPORT __attribute__((visibility("default")))

// cuda.h maps the name to the current ABI; the first ABI is exported too.
#undef cuGetProcAddress
extern "C" CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags);
#undef cudaGetDriverEntryPoint
#undef cudaGetDriverEntryPointByVersion

namespace syncscope::preload {
namespace {

using GetProcAddressV1 = CUresult (*)(const char*, void**, int, cuuint64_t);
using GetProcAddressV2 = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

std::atomic<void*> g_get_proc_v1{nullptr};
std::atomic<void*> g_get_proc_v2{nullptr};

void* real_get_proc_v1() { return real_function(g_get_proc_v1, RealLibrary::kCudaDriver, "cuGetProcAddress"); }
void* real_get_proc_v2() { return real_function(g_get_proc_v2, RealLibrary::kCudaDriver, "cuGetProcAddress_v2"); }

// The entry points themselves, when fetched, are replaced by ours so that
// everything fetched through them is wrapped too.
void* swap_entry_point(const char* symbol, void* real);

}  // namespace
}  // namespace syncscope::preload

using namespace syncscope::preload;

extern "C" SS_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                                  CUdriverProcAddressQueryResult* symbolStatus) {
  auto real = reinterpret_cast<GetProcAddressV2>(real_get_proc_v2());
  if (real == nullptr) return CUDA_ERROR_NOT_FOUND;
  CUresult result = real(symbol, pfn, cudaVersion, flags, symbolStatus);
  if (result == CUDA_SUCCESS && pfn != nullptr && symbol != nullptr) {
    void* swapped = swap_entry_point(symbol, *pfn);
    *pfn = swapped != *pfn ? swapped : driver_wrapper_for(symbol, *pfn, cudaVersion, flags, false);
  }
  return result;
}

extern "C" SS_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  auto real = reinterpret_cast<GetProcAddressV1>(real_get_proc_v1());
  if (real == nullptr) return CUDA_ERROR_NOT_FOUND;
  CUresult result = real(symbol, pfn, cudaVersion, flags);
  if (result == CUDA_SUCCESS && pfn != nullptr && symbol != nullptr) {
    void* swapped = swap_entry_point(symbol, *pfn);
    *pfn = swapped != *pfn ? swapped : driver_wrapper_for(symbol, *pfn, cudaVersion, flags, false);
  }
  return result;
}

namespace syncscope::preload {
namespace {

void* swap_entry_point(const char* symbol, void* real) {
  if (real == nullptr || std::strncmp(symbol, "cuGetProcAddress", 16) != 0) return real;
  // Which ABI `real` is: compare with the exported functions.
  void* v2 = real_get_proc_v2();
  void* v1 = real_get_proc_v1();
  if (real == v2) return reinterpret_cast<void*>(&cuGetProcAddress_v2);
  if (real == v1) return reinterpret_cast<void*>(&cuGetProcAddress);
  return real;
}

bool is_driver_name(const char* symbol) {
  return symbol != nullptr && symbol[0] == 'c' && symbol[1] == 'u' && std::strncmp(symbol, "cuda", 4) != 0;
}

bool is_runtime_name(const char* symbol) {
  return symbol != nullptr && (std::strncmp(symbol, "cuda", 4) == 0 || std::strncmp(symbol, "__cuda", 6) == 0);
}

// Loaded late (attach, syncscope.watch()), this library comes after the
// runtime in the global lookup order, so dlsym finds the runtime's own
// function: a program that looks the runtime up by name (ctypes, cffi) would
// bypass the hooks. A runtime function found inside libcudart is swapped for
// this library's hook of the same name, when there is one.
void* runtime_hook_for(DlsymFn real, const char* symbol, void* found) {
  if (found == nullptr || !loaded_late() || !is_runtime_name(symbol)) return found;
  Dl_info where{};
  if (dladdr(found, &where) == 0 || where.dli_fname == nullptr || std::strstr(where.dli_fname, "libcudart") == nullptr) {
    return found;
  }
  static void* self = [] {
    Dl_info me{};
    if (dladdr(reinterpret_cast<void*>(&is_runtime_name), &me) == 0 || me.dli_fname == nullptr) return (void*)nullptr;
    return dlopen(me.dli_fname, RTLD_LAZY | RTLD_NOLOAD);  // held for the process's life
  }();
  if (self == nullptr) return found;
  void* hook = real(self, symbol);
  return hook != nullptr ? hook : found;
}

}  // namespace
}  // namespace syncscope::preload

// dlsym itself. glibc decides what RTLD_NEXT means from the caller's return
// address, so that case must reach the real dlsym with the caller's frame
// untouched: a tail jump, which only assembly guarantees. Every other
// lookup goes to syncscope_dlsym_lookup, which swaps driver functions.
// `caller` is the caller's return address: RTLD_DEFAULT also searches the
// caller's own dependencies when it was loaded RTLD_LOCAL (a Python
// extension), and the real dlsym now sees this library as the caller.
static void* default_lookup_as_caller(syncscope::preload::DlsymFn real, const char* symbol, void* caller) {
  Dl_info where{};
  if (caller == nullptr || dladdr(caller, &where) == 0 || where.dli_fname == nullptr || where.dli_fname[0] == '\0') {
    return nullptr;
  }
  void* handle = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void* fn = real(handle, symbol);
  dlclose(handle);
  return fn;
}

// Before this library's constructors run, dlsym may already be called: a
// sanitizer runtime loaded ahead of it (ASan's libasan, first in LD_PRELOAD)
// looks up the functions it intercepts from its own start-up, before its
// shadow memory exists, and those calls land here. So until then every
// lookup goes straight to glibc's dlsym through code no sanitizer
// instruments (issue 15: an ASan-built preload crashed every target).
// Plain variables, read and written with __atomic builtins (no instrumented
// std::atomic member call).
namespace {
bool g_constructed = false;
DlsymFn g_startup_dlsym = nullptr;
}  // namespace

#define SS_UNINSTRUMENTED __attribute__((no_sanitize_address, no_sanitize("undefined"), no_sanitize_thread))

__attribute__((constructor(101))) static void note_constructed() {
  __atomic_store_n(&g_constructed, true, __ATOMIC_RELEASE);
}

SS_UNINSTRUMENTED static bool constructed() { return __atomic_load_n(&g_constructed, __ATOMIC_ACQUIRE); }

// glibc's dlsym, found the way real_dlsym() does when preloaded (the only
// way a call can come before the constructors).
SS_UNINSTRUMENTED static DlsymFn startup_dlsym() {
  DlsymFn fn = __atomic_load_n(&g_startup_dlsym, __ATOMIC_ACQUIRE);
  if (fn != nullptr) return fn;
  const char* versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"};
  for (const char* version : versions) {
    fn = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", version));
    if (fn != nullptr) break;
  }
  __atomic_store_n(&g_startup_dlsym, fn, __ATOMIC_RELEASE);
  return fn;
}

static void* dlsym_lookup(void* handle, const char* symbol, void* caller);

extern "C" __attribute__((visibility("hidden"))) SS_UNINSTRUMENTED void* syncscope_dlsym_lookup(void* handle,
                                                                                                const char* symbol,
                                                                                                void* caller) {
  if (!constructed()) {
    DlsymFn fn = startup_dlsym();
    return fn != nullptr ? fn(handle, symbol) : nullptr;
  }
  return dlsym_lookup(handle, symbol, caller);
}

static void* dlsym_lookup(void* handle, const char* symbol, void* caller) {
  DlsymFn real = real_dlsym();
  void* fn = real(handle, symbol);
  if (fn == nullptr && handle == RTLD_DEFAULT) fn = default_lookup_as_caller(real, symbol, caller);
  if (!is_driver_name(symbol)) return runtime_hook_for(real, symbol, fn);
  void* swapped = swap_entry_point(symbol, fn);
  if (swapped != fn) return swapped;
  return driver_wrapper_for(symbol, fn, 0, 0, /*exact_name=*/true);
}

extern "C" __attribute__((visibility("hidden"))) SS_UNINSTRUMENTED void* syncscope_real_dlsym_address() {
  return reinterpret_cast<void*>(constructed() ? real_dlsym() : startup_dlsym());
}

#if defined(__x86_64__)
__asm__(
    ".text\n"
    ".globl dlsym\n"
    ".type dlsym, @function\n"
    "dlsym:\n"
    "  movq (%rsp), %rdx\n"  // the caller's return address
    "  cmpq $-1, %rdi\n"     // RTLD_NEXT is (void*)-1
    "  jne syncscope_dlsym_lookup\n"
    "  pushq %rdi\n"
    "  pushq %rsi\n"
    "  subq $8, %rsp\n"  // 16-byte alignment for the call
    "  call syncscope_real_dlsym_address\n"
    "  addq $8, %rsp\n"
    "  popq %rsi\n"
    "  popq %rdi\n"
    "  jmp *%rax\n"
    ".size dlsym, .-dlsym\n");
#elif defined(__aarch64__)
__asm__(
    ".text\n"
    ".globl dlsym\n"
    ".type dlsym, %function\n"
    "dlsym:\n"
    "  mov x2, x30\n"  // the caller's return address
    "  cmn x0, #1\n"
    "  b.ne syncscope_dlsym_lookup\n"
    "  stp x0, x1, [sp, #-32]!\n"
    "  str x30, [sp, #16]\n"
    "  bl syncscope_real_dlsym_address\n"
    "  mov x16, x0\n"
    "  ldr x30, [sp, #16]\n"
    "  ldp x0, x1, [sp], #32\n"
    "  br x16\n"
    ".size dlsym, .-dlsym\n");
#else
#error "dlsym trampoline: add this architecture"
#endif

namespace {

using EntryPoint = cudaError_t (*)(const char*, void**, unsigned long long, cudaDriverEntryPointQueryResult*);
using EntryPointByVersion = cudaError_t (*)(const char*, void**, unsigned int, unsigned long long,
                                            cudaDriverEntryPointQueryResult*);

void swap_fetched(const char* symbol, void** fn, int cuda_version, unsigned long long flags) {
  if (symbol == nullptr || fn == nullptr || *fn == nullptr) return;
  void* swapped = swap_entry_point(symbol, *fn);
  *fn = swapped != *fn ? swapped : driver_wrapper_for(symbol, *fn, cuda_version, flags, false);
}

}  // namespace

// The runtime's own (non-versioned) query answers with its own version's
// ABI, which for a CUDA 12 or 13 runtime is the current one.
constexpr int kRuntimeAbiVersion = 12000;

#define SS_ENTRY_POINT(name)                                                                          \
  extern "C" SS_EXPORT cudaError_t name(const char* symbol, void** funcPtr, unsigned long long flags, \
                                        cudaDriverEntryPointQueryResult* driverStatus) {              \
    static std::atomic<void*> slot{nullptr};                                                          \
    auto real = reinterpret_cast<EntryPoint>(real_function(slot, RealLibrary::kCudaRuntime, #name));  \
    if (real == nullptr) return cudaErrorSharedObjectSymbolNotFound;                                  \
    cudaError_t result = real(symbol, funcPtr, flags, driverStatus);                                  \
    if (result == cudaSuccess) swap_fetched(symbol, funcPtr, kRuntimeAbiVersion, flags);              \
    return result;                                                                                    \
  }
SS_ENTRY_POINT(cudaGetDriverEntryPoint)
SS_ENTRY_POINT(cudaGetDriverEntryPoint_ptsz)
#undef SS_ENTRY_POINT

#define SS_ENTRY_POINT_BY_VERSION(name)                                                                            \
  extern "C" SS_EXPORT cudaError_t name(const char* symbol, void** funcPtr, unsigned int cudaVersion,              \
                                        unsigned long long flags, cudaDriverEntryPointQueryResult* driverStatus) { \
    static std::atomic<void*> slot{nullptr};                                                                       \
    auto real = reinterpret_cast<EntryPointByVersion>(real_function(slot, RealLibrary::kCudaRuntime, #name));      \
    if (real == nullptr) return cudaErrorSharedObjectSymbolNotFound;                                               \
    cudaError_t result = real(symbol, funcPtr, cudaVersion, flags, driverStatus);                                  \
    if (result == cudaSuccess) swap_fetched(symbol, funcPtr, static_cast<int>(cudaVersion), flags);                \
    return result;                                                                                                 \
  }
SS_ENTRY_POINT_BY_VERSION(cudaGetDriverEntryPointByVersion)
SS_ENTRY_POINT_BY_VERSION(cudaGetDriverEntryPointByVersion_ptsz)
#undef SS_ENTRY_POINT_BY_VERSION
