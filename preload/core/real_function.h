// Finding the real function behind a hook: the one place the preload looks
// up functions of the CUDA runtime, the CUDA driver, the Python interpreter
// and glibc's dlsym. Every hook calls through a pointer found here.
//
// The rules, and why:
//
// 1. Preloaded (LD_PRELOAD), this library comes first in the global search
//    order, so its exports shadow the real ones: dlsym(RTLD_DEFAULT, name)
//    would find our own hook. dlsym(RTLD_NEXT, name) asked from inside this
//    library finds the next definition after it: the real one.
//
// 2. Loaded late (`syncscope attach` dlopens it, load_mode.h), this library
//    is in no global search list and RTLD_NEXT means nothing for it. The
//    defining library is asked by handle instead (dlopen RTLD_NOLOAD: never
//    loads anything).
//
// 3. A library loaded privately (dlopen RTLD_LOCAL: PyTorch's own runtime,
//    an embedding program's libpython) is in no global search list either:
//    it is asked by handle, found by its soname or among the loaded objects.
//
// 4. The executable itself may define the function (a statically linked
//    python3 defines the whole C API). The executable comes before this
//    library in the global order, so for Python RTLD_DEFAULT is asked first;
//    what it finds may be our own export (a shared libpython comes after
//    us), in which case rule 1 applies.
//
// 5. Our own exports are never returned, by any rule: a hook calling itself
//    would recurse forever. An address inside this library is refused.
//
// 6. dlsym itself is hooked (hooks/hooks_entry_points.cpp hands out driver
//    wrappers from it), and -Bsymbolic-functions binds this library's own
//    calls to dlsym to that hook. Every lookup here therefore goes through
//    real_dlsym(), glibc's, so that asking libcuda's handle for
//    "cuLaunchKernel" gives the driver's function, not our wrapper.
//
// Lookups take the loader's lock and may be slow; hooks cache them with
// real_function(), whose fast path is one acquire load.
#pragma once

#include <atomic>

namespace syncscope::preload {

// The library that defines the real function.
enum class RealLibrary {
  kCudaRuntime,  // libcudart.so.13 (symbol version "libcudart.so.13" preferred)
  kCudaDriver,   // libcuda.so.1
  kPython,       // the interpreter: the executable or a libpython*.so
};

// Uncached lookup of `name` as defined by `library`, following the rules
// above; nullptr when it is not loaded (or not found).
void* find_real_function(RealLibrary library, const char* name);

// Cached lookup: after the first success, one acquire load. A failed
// lookup is not cached (the library may be loaded later).
__attribute__((noinline, cold)) void* resolve_real_function(std::atomic<void*>& slot, RealLibrary library,
                                                            const char* name);
inline void* real_function(std::atomic<void*>& slot, RealLibrary library, const char* name) {
  void* fn = slot.load(std::memory_order_acquire);
  if (__builtin_expect(fn != nullptr, 1)) return fn;
  return resolve_real_function(slot, library, name);
}

// glibc's dlsym (rule 6), found with dlvsym, which is not hooked. Cached.
using DlsymFn = void* (*)(void*, const char*);
DlsymFn real_dlsym();

// The loaded libcuda.so.1 (RTLD_NOLOAD; never loads it), or nullptr. Cached
// once found: libcuda is never unloaded in practice.
void* loaded_libcuda();

}  // namespace syncscope::preload
