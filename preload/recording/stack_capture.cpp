#include "preload/recording/stack_capture.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>

#include <initializer_list>
#include <string>

#include "trace/format.h"

namespace syncscope::preload {
namespace {

using UnwBacktraceFn = int (*)(void** buffer, int size);
UnwBacktraceFn g_unw_backtrace = nullptr;

// Address range of this library's code, to skip the recorder's own frames.
uintptr_t g_self_begin = 0;
uintptr_t g_self_end = 0;

int find_self(dl_phdr_info* info, size_t, void* data) {
  auto self = reinterpret_cast<uintptr_t>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    uintptr_t end = begin + ph.p_memsz;
    if (self >= begin && self < end) {
      g_self_begin = begin;
      g_self_end = end;
      return 1;
    }
  }
  return 0;
}

// A relocatable bundle (scripts/make-bundle.sh) ships libunwind.so.8 next
// to libsyncscope.so, for machines without Debian's libunwind8.
std::string bundled_unwinder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&find_self), &info) == 0 || info.dli_fname == nullptr) return {};
  std::string path(info.dli_fname);
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1) + "libunwind.so.8";
}

}  // namespace

void stack_capture_init() {
  dl_iterate_phdr(find_self, reinterpret_cast<void*>(&stack_capture_init));
  const std::string bundled = bundled_unwinder();
  for (const char* name : {"libunwind.so.8", "libunwind.so", bundled.c_str()}) {
    if (*name == '\0') continue;
    void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) continue;
    // unw_backtrace is a macro for _ULx86_64_unw_backtrace-style names on
    // some builds; try the plain export first.
    void* fn = dlsym(handle, "unw_backtrace");
    if (fn == nullptr) fn = dlsym(handle, "_ULx86_64_unw_backtrace");
    if (fn != nullptr) {
      g_unw_backtrace = reinterpret_cast<UnwBacktraceFn>(fn);
      return;
    }
  }
  // Make glibc load libgcc_s now, not inside the first hooked call.
  void* warmup[4];
  backtrace(warmup, 4);
}

const char* stack_unwinder_name() { return g_unw_backtrace != nullptr ? "libunwind" : "libgcc"; }

uint32_t capture_stack(uint64_t* pcs, uint32_t max, bool skip_own_frames) {
  void* raw[kMaxStackDepth + 16];
  int want = static_cast<int>(max) + 16;
  if (want > static_cast<int>(sizeof(raw) / sizeof(raw[0]))) want = sizeof(raw) / sizeof(raw[0]);
  int n = g_unw_backtrace != nullptr ? g_unw_backtrace(raw, want) : backtrace(raw, want);
  int first = 0;
  while (skip_own_frames && first < n) {
    auto pc = reinterpret_cast<uintptr_t>(raw[first]);
    if (pc < g_self_begin || pc >= g_self_end) break;
    ++first;
  }
  uint32_t depth = 0;
  for (int i = first; i < n && depth < max; ++i) pcs[depth++] = reinterpret_cast<uintptr_t>(raw[i]);
  return depth;
}

}  // namespace syncscope::preload
