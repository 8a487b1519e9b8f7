// How this library came into the process, decided once by the constructor:
//   preloaded  LD_PRELOAD named it (`syncscope run`, or by hand): its exports
//              outrank the CUDA libraries', so every call reaches a hook.
//   late       dlopen'ed into a running process (`syncscope attach` injects
//              it): nothing reaches the hooks until import slots are patched
//              (import_redirection.h), and dlsym(RTLD_NEXT) must not be used
//              (this library is in no global search list, see next_definition).
#pragma once

namespace syncscope::preload {

enum class LoadMode { kPreloaded, kLate };

void decide_load_mode();
LoadMode load_mode();
inline bool loaded_late() { return load_mode() == LoadMode::kLate; }

// The definition of `name` that follows this library in the global search
// order (dlsym(RTLD_NEXT)); nullptr when loaded late, where callers look in
// the defining library by handle instead.
void* next_definition(const char* name);

}  // namespace syncscope::preload
