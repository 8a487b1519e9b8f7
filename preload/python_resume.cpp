// Completing Python attribution for CUDA calls made with the GIL released.
//
// PyTorch releases the GIL around its C++ work (pybind11's
// gil_scoped_release), so `.item()`'s copy and sync run without it and their
// Python frames cannot be read safely then. But the thread executes no Python
// until it takes the GIL back, through PyEval_RestoreThread: at that moment
// its Python stack is exactly the one that made the calls. The preload
// interposes PyEval_RestoreThread, and when the thread has events waiting
// (thread_state.h, PendingEvent) captures the Python frames with the GIL held
// and interns them with each event's native stack. A thread with nothing
// pending pays one thread-local load.
//
// A statically linked python3 (Debian's, Ubuntu's) defines the C API in the
// executable, which LD_PRELOAD cannot outrank: there the extension modules'
// import slots for PyEval_RestoreThread are patched (import_patch.h) when an
// event is first deferred.
#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstring>

#include "preload/import_patch.h"
#include "preload/load_mode.h"
#include "preload/log.h"
#include "preload/python_frames.h"
#include "preload/recorder.h"
#include "preload/stack_table.h"
#include "preload/thread_state.h"

namespace syncscope::preload {

// The hook's own code, hidden: taking the address of the exported
// PyEval_RestoreThread from inside this library would give the executable's
// definition when the executable has one (symbol interposition).
void restore_thread_hook(void* thread_state);

namespace {

using RestoreFn = void (*)(void*);

// libpython loaded privately (an embedding program) is not found by
// RTLD_NEXT: look through the loaded objects for it.
void* find_in_libpython(const char* name) {
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
        s->found = dlsym(handle, s->name);
        dlclose(handle);
        return s->found != nullptr ? 1 : 0;
      },
      &search);
  return search.found;
}

RestoreFn real_restore() {
  static std::atomic<void*> slot{nullptr};
  void* fn = slot.load(std::memory_order_acquire);
  if (fn == nullptr) {
    // The executable's own definition comes first in the global scope; a
    // shared libpython's comes after this library.
    fn = dlsym(RTLD_DEFAULT, "PyEval_RestoreThread");
    if (fn == dlsym(RTLD_DEFAULT, "PyEval_RestoreThread") && fn != nullptr) {
      Dl_info where{}, self{};
      // Our own export (a shared libpython comes after this library): skip it.
      if (dladdr(fn, &where) && dladdr(reinterpret_cast<void*>(&restore_thread_hook), &self) &&
          where.dli_fbase == self.dli_fbase) {
        fn = dlsym(RTLD_NEXT, "PyEval_RestoreThread");
      }
    }
    if (fn == nullptr) fn = find_in_libpython("PyEval_RestoreThread");
    slot.store(fn, std::memory_order_release);
  }
  return reinterpret_cast<RestoreFn>(fn);
}

void complete_pending(ThreadState* thread) {
  tls_in_hook = true;
  uint64_t python[kMaxPythonDepth];
  uint32_t python_depth = capture_python_stack(python, kMaxPythonDepth);
  static std::atomic<int> logged{0};
  if (logged.fetch_add(1, std::memory_order_relaxed) < 3) {
    log_debug("python: %u pending event(s) completed with %u Python frame(s)", thread->pending_count, python_depth);
  }
  for (uint32_t i = 0; i < thread->pending_count; ++i) {
    PendingEvent& p = thread->pending[i];
    if (python_depth > 0) p.event.stack_id = stack_table().intern(p.pcs, p.depth, python, python_depth);
    thread->ring.push(p.event);
  }
  thread->pending_count = 0;
  tls_in_hook = false;
}

}  // namespace

void restore_thread_hook(void* thread_state) {
  RestoreFn real = real_restore();
  if (real != nullptr) real(thread_state);  // nothing to restore to without Python
  ThreadState* thread = tls_state;
  if (__builtin_expect(thread != nullptr && thread->pending_count > 0, 0) && !tls_in_hook) {
    if (!recording()) {
      thread->pending_count = 0;  // owed to a session that has ended
      return;
    }
    complete_pending(thread);
  }
}

void route_gil_reacquire_here() {
  // Loaded late, attach redirected these slots with every other hook, and
  // puts them back when it detaches (import_redirection.h).
  if (loaded_late()) return;
  int written = patch_imports("PyEval_RestoreThread", reinterpret_cast<void*>(&restore_thread_hook));
  static std::atomic<int> calls{0};
  if (written > 0 || calls.fetch_add(1, std::memory_order_relaxed) == 0) {
    log_debug("python: %d import slot(s) of PyEval_RestoreThread now reach the preload", written);
  }
}

}  // namespace syncscope::preload

extern "C" __attribute__((visibility("default"))) void PyEval_RestoreThread(void* thread_state) {
  syncscope::preload::restore_thread_hook(thread_state);
}
