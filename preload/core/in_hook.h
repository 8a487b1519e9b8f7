// The per-thread "inside a hook" flag. While it is set, every hook on this
// thread passes straight through without recording, so that
//   - the CUDA calls a recorded call makes itself (a runtime call going
//     through the driver, our own cudaPointerGetAttributes) are not counted
//     twice or recorded as the program's;
//   - the recorder's own threads (collector, control endpoint) and its
//     start-up never record themselves.
// Set it through InHookScope, so every early return clears it (the hooks'
// shared body, hooks/hook_body.h, is the one exception, for speed).
#pragma once

namespace syncscope::preload {

// initial-exec TLS: one instruction to reach it from a hook.
extern __thread bool tls_in_hook __attribute__((tls_model("initial-exec")));

// Sets the flag for its lifetime and puts back what it found, so scopes
// nest. Declared at the top of a thread's function, it covers the thread.
class InHookScope {
 public:
  InHookScope() : previous_(tls_in_hook) { tls_in_hook = true; }
  ~InHookScope() { tls_in_hook = previous_; }
  InHookScope(const InHookScope&) = delete;
  InHookScope& operator=(const InHookScope&) = delete;

 private:
  bool previous_;
};

}  // namespace syncscope::preload
