#include "preload/core/real_function.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <initializer_list>

#include "preload/core/load_mode.h"

namespace syncscope::preload {
namespace {

// glibc's dlsym when it can be had, else nothing is found (never a call
// through a null pointer).
void* lookup(void* handle, const char* name) {
  DlsymFn dlsym_fn = real_dlsym();
  return dlsym_fn != nullptr ? dlsym_fn(handle, name) : nullptr;
}

// Rule 5: an address inside this library is one of our own hooks.
bool defined_here(const void* fn) {
  Dl_info where{}, self{};
  return dladdr(fn, &where) != 0 && dladdr(reinterpret_cast<const void*>(&defined_here), &self) != 0 &&
         where.dli_fbase == self.dli_fbase;
}

void* not_ours(void* fn) { return fn != nullptr && !defined_here(fn) ? fn : nullptr; }

// Rule 1: the definition after this library in the global search order.
// glibc reads "after whom" from the return address of its dlsym: this call
// is made from inside this library. Rule 2: nothing when loaded late.
void* next_definition(const char* name) { return loaded_late() ? nullptr : lookup(RTLD_NEXT, name); }

// Rule 3 for the runtime: by soname, preferring the versioned symbol (the
// runtime may export an older ABI under the bare name).
void* in_cuda_runtime(const char* name) {
  for (const char* library : {"libcudart.so.13", "libcudart.so"}) {
    void* handle = dlopen(library, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    void* fn = dlvsym(handle, name, "libcudart.so.13");
    if (fn == nullptr) fn = lookup(handle, name);
    dlclose(handle);  // NOLOAD took a reference; the library stays loaded
    if (fn != nullptr) return fn;
  }
  return nullptr;
}

// Rule 3 for Python: libpython has no fixed soname (libpython3.12.so.1.0),
// so the loaded objects are searched for one.
void* in_libpython(const char* name) {
  struct Search {
    const char* name;
    void* found;
  } search{name, nullptr};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "libpython") == nullptr) return 0;
        void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
        if (handle == nullptr) return 0;
        s->found = lookup(handle, s->name);
        dlclose(handle);
        return s->found != nullptr ? 1 : 0;
      },
      &search);
  return search.found;
}

}  // namespace

void* find_real_function(RealLibrary library, const char* name) {
  void* fn = nullptr;
  switch (library) {
    case RealLibrary::kCudaRuntime:
      fn = not_ours(next_definition(name));
      if (fn == nullptr) fn = not_ours(in_cuda_runtime(name));
      return fn;
    case RealLibrary::kCudaDriver:
      fn = not_ours(next_definition(name));
      if (fn == nullptr && loaded_libcuda() != nullptr) fn = not_ours(lookup(loaded_libcuda(), name));
      return fn;
    case RealLibrary::kPython:
      // Rule 4: the executable's own definition first.
      fn = not_ours(lookup(RTLD_DEFAULT, name));
      if (fn == nullptr) fn = not_ours(next_definition(name));
      if (fn == nullptr) fn = not_ours(in_libpython(name));
      return fn;
  }
  return nullptr;
}

void* resolve_real_function(std::atomic<void*>& slot, RealLibrary library, const char* name) {
  void* fn = find_real_function(library, name);
  if (fn != nullptr) slot.store(fn, std::memory_order_release);
  return fn;
}

DlsymFn real_dlsym() {
  static std::atomic<DlsymFn> real{nullptr};
  DlsymFn fn = real.load(std::memory_order_acquire);
  if (__builtin_expect(fn != nullptr, 1)) return fn;
  // dlsym moved into libc in glibc 2.34; before that it was libdl's
  // GLIBC_2.2.5 (x86_64) or GLIBC_2.17 (aarch64). Loaded late, RTLD_NEXT
  // has no meaning for this library (rule 2): ask libc (or the old libdl)
  // by handle.
  void* late_handles[2] = {nullptr, nullptr};
  if (loaded_late()) {
    late_handles[0] = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    late_handles[1] = dlopen("libdl.so.2", RTLD_LAZY | RTLD_NOLOAD);
  }
  for (const char* version : {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"}) {
    if (!loaded_late()) {
      fn = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", version));
    } else {
      for (void* handle : late_handles) {
        if (fn == nullptr && handle != nullptr) fn = reinterpret_cast<DlsymFn>(dlvsym(handle, "dlsym", version));
      }
    }
    if (fn != nullptr) break;
  }
  // The handles stay referenced: libc and libdl are never unloaded.
  if (fn != nullptr) real.store(fn, std::memory_order_release);
  return fn;
}

void* loaded_libcuda() {
  static std::atomic<void*> handle{nullptr};
  void* h = handle.load(std::memory_order_acquire);
  if (h != nullptr) return h;
  h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (h == nullptr) return nullptr;
  // NOLOAD took a reference; keeping the handle avoids a dlopen per lookup.
  handle.store(h, std::memory_order_release);
  return h;
}

}  // namespace syncscope::preload
