// How this library came into the process, decided once by the constructor:
//   preloaded  LD_PRELOAD named it (`syncscope run`, or by hand): its exports
//              outrank the CUDA libraries', so every call reaches a hook.
//   late       dlopen'ed into a running process (`syncscope attach` injects
//              it): nothing reaches the hooks until import slots are patched
//              (attach/import_redirection.h), and dlsym(RTLD_NEXT) must not be used
//              (this library is in no global search list, real_function.h).
#pragma once

namespace syncscope::preload {

enum class LoadMode { kPreloaded, kLate };

void decide_load_mode();
LoadMode load_mode();
inline bool loaded_late() { return load_mode() == LoadMode::kLate; }

}  // namespace syncscope::preload
