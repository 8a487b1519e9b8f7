// _exit and _Exit: a process leaving through them (Python's os._exit in
// launchers, DataLoader workers and frameworks that skip teardown) runs no
// atexit handler and no destructor, so the recorder's usual final flush
// never happens and the trace would lack its end. These run that flush, then
// the real function. Fatal signals are left alone: the target's handlers
// and dispositions stay its own, and a trace without its end is a recording
// problem that fails any gate (docs/security.md).
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/recording/collector.h"
#include "preload/core/in_hook.h"
#include "preload/core/real_function.h"
#include "preload/recording/thread_state.h"

namespace syncscope::preload {
namespace {

using ExitFn = void (*)(int);

void flush_before_leaving() {
  if (tls_in_hook) return;  // inside a hook or one of our threads: nothing of the program's to finish
  InHookScope quiet;
  if (tls_state != nullptr) flush_pending_native(tls_state);
  collector_flush_at_exit_call();
}

[[noreturn]] void leave(const char* name, int status) {
  auto real = reinterpret_cast<ExitFn>(real_dlsym()(RTLD_NEXT, name));
  if (real != nullptr) real(status);  // RTLD_NEXT: glibc's (or the next preloaded tool's), never ours
  for (;;) syscall(SYS_exit_group, status);  // what glibc's _exit does
}

}  // namespace
}  // namespace syncscope::preload

extern "C" __attribute__((visibility("default"), noreturn)) void _exit(int status) {
  syncscope::preload::flush_before_leaving();
  syncscope::preload::leave("_exit", status);
}

extern "C" __attribute__((visibility("default"), noreturn)) void _Exit(int status) {
  syncscope::preload::flush_before_leaving();
  syncscope::preload::leave("_Exit", status);
}
