// Finding the real CUDA function behind a hook. dlsym(RTLD_NEXT) finds the
// next definition after the preload in the global search order; when the
// runtime was loaded privately (RTLD_LOCAL) it is not there, so the loaded
// libcudart.so.13 is asked directly, by its symbol version.
#pragma once

#include <atomic>

namespace syncscope::preload {

void* find_real_function(const char* name);

// Cached lookup: after the first call, one acquire load.
inline void* real_function(std::atomic<void*>& slot, const char* name) {
  void* fn = slot.load(std::memory_order_acquire);
  if (__builtin_expect(fn != nullptr, 1)) return fn;
  fn = find_real_function(name);
  if (fn != nullptr) slot.store(fn, std::memory_order_release);
  return fn;
}

}  // namespace syncscope::preload
