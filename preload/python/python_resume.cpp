// Completing Python attribution for CUDA calls made with the GIL released.
//
// PyTorch releases the GIL around its C++ work (pybind11's
// gil_scoped_release), so `.item()`'s copy and sync run without it and their
// Python frames cannot be read safely then. But the thread executes no Python
// until it takes the GIL back, through PyEval_RestoreThread: at that moment
// its Python stack is exactly the one that made the calls. The preload
// interposes PyEval_RestoreThread, and when the thread has events waiting
// (thread_state.h, ThreadState::pending) captures the Python frames with the GIL held
// and interns them with each event's native stack. A thread with nothing
// pending pays one thread-local load.
//
// Threads without Python frames. Autograd runs backward on its own worker
// threads, which hold a Python thread state but never a frame: their syncs
// and allocations have no Python line of their own. The line the user can
// act on is the one waiting for them (`loss.backward()`), blocked with the
// GIL released. So PyEval_SaveThread is interposed too and notes, per
// thread, when the GIL was released; when a thread takes it back and a
// frameless call of another thread was recorded meanwhile, it records one
// syncscope_gil_wait event (released .. taken back, its Python stack). The
// analysis attributes the frameless calls to the wait that covers them
// (segmentation/waiters.h). A thread pays one thread-local store per release
// and two relaxed loads per re-acquire.
//
// A statically linked python3 (Debian's, Ubuntu's) defines the C API in the
// executable, which LD_PRELOAD cannot outrank: there the extension modules'
// import slots for both functions are patched (import_patch.h) when an event
// is first deferred.
#include <atomic>

#include "preload/core/clock.h"
#include "preload/attach/import_patch.h"
#include "preload/core/in_hook.h"
#include "preload/core/load_mode.h"
#include "preload/core/log.h"
#include "preload/python/python_frames.h"
#include "preload/core/real_function.h"
#include "preload/recording/recorder.h"
#include "preload/recording/stack_table.h"
#include "preload/recording/thread_state.h"
#include "trace/api.h"

namespace syncscope::preload {

// The hooks' own code, hidden: taking the address of the exported
// PyEval_RestoreThread from inside this library would give the executable's
// definition when the executable has one (symbol interposition).
void restore_thread_hook(void* thread_state);
void* save_thread_hook();

namespace {

using RestoreFn = void (*)(void*);
using SaveFn = void* (*)();

// When this thread last released the GIL through PyEval_SaveThread (ticks;
// 0: not since it last took it back, or the release was not seen).
__thread uint64_t tls_gil_released_at __attribute__((tls_model("initial-exec"))) = 0;
// The last frameless call worth a stack, and its thread (racy pair: a wait
// that misses one by a race is followed by the next backward's).
std::atomic<uint64_t> g_frameless_at{0};
std::atomic<uint32_t> g_frameless_tid{0};

RestoreFn real_restore() {
  static std::atomic<void*> slot{nullptr};
  return reinterpret_cast<RestoreFn>(real_function(slot, RealLibrary::kPython, "PyEval_RestoreThread"));
}

SaveFn real_save() {
  static std::atomic<void*> slot{nullptr};
  return reinterpret_cast<SaveFn>(real_function(slot, RealLibrary::kPython, "PyEval_SaveThread"));
}

// One syncscope_gil_wait event: this thread waited, GIL released, from
// `released` until now, while a frameless thread worked.
void record_gil_wait(ThreadState* thread, uint64_t released) {
  InHookScope in_hook;
  const uint64_t began = now_ticks();
  uint64_t python[kMaxPythonDepth];
  uint32_t python_depth = capture_python_stack(python, kMaxPythonDepth);
  if (python_depth > 0) {
    Event e{};
    e.api = static_cast<uint16_t>(ApiId::syncscope_gil_wait);
    e.start_ns = released;
    e.end_ns = now_ticks();
    e.tid = thread->tid;
    e.device = -1;
    const uint64_t no_native[1] = {0};
    e.stack_id = stack_table().intern(no_native, 0, python, python_depth);
    thread->ring.push(e);
  }
  thread->add_capture(now_ticks() - began);
}

void complete_pending(ThreadState* thread) {
  InHookScope in_hook;
  const uint64_t began = now_ticks();
  uint64_t python[kMaxPythonDepth];
  uint32_t python_depth = capture_python_stack(python, kMaxPythonDepth);
  static std::atomic<int> logged{0};
  if (logged.fetch_add(1, std::memory_order_relaxed) < 3) {
    log_debug("python: %u pending event(s) completed with %u Python frame(s)", thread->pending_count, python_depth);
  }
  for (uint32_t i = 0; i < thread->pending_count; ++i) {
    Event& e = thread->pending[i];
    const uint64_t* pcs = nullptr;
    uint32_t depth = 0;
    // Id 0: no native frames were captured (or the table is full, and
    // interning fails again).
    if (python_depth > 0 && (e.stack_id == 0 || stack_table().native_frames(e.stack_id, &pcs, &depth))) {
      e.stack_id = stack_table().intern(pcs, depth, python, python_depth);
    }
    thread->ring.push(e);
  }
  thread->pending_count = 0;
  thread->add_capture(now_ticks() - began);
}

}  // namespace

void note_frameless_call(uint32_t tid, uint64_t ticks) {
  g_frameless_tid.store(tid, std::memory_order_relaxed);
  g_frameless_at.store(ticks, std::memory_order_relaxed);
}

void* save_thread_hook() {
  SaveFn real = real_save();
  void* state = real != nullptr ? real() : nullptr;
  if (recording()) tls_gil_released_at = now_ticks();
  return state;
}

void restore_thread_hook(void* thread_state) {
  RestoreFn real = real_restore();
  if (real != nullptr) real(thread_state);  // nothing to restore to without Python
  const uint64_t released = tls_gil_released_at;
  tls_gil_released_at = 0;
  ThreadState* thread = tls_state;
  if (__builtin_expect(thread != nullptr && thread->pending_count > 0, 0) && !tls_in_hook) {
    if (!recording()) {
      thread->pending_count = 0;  // owed to a session that has ended
      return;
    }
    complete_pending(thread);
  }
  if (__builtin_expect(released != 0 && g_frameless_at.load(std::memory_order_relaxed) > released, 0) && !tls_in_hook &&
      recording()) {
    thread = current_thread_state();
    if (thread != nullptr && g_frameless_tid.load(std::memory_order_relaxed) != thread->tid) {
      record_gil_wait(thread, released);
    }
  }
}

void route_gil_reacquire_here() {
  // Loaded late, attach redirected these slots with every other hook, and
  // puts them back when it detaches (attach/import_redirection.h).
  if (loaded_late()) return;
  const ImportPatch patches[] = {
      {"PyEval_RestoreThread", reinterpret_cast<void*>(&restore_thread_hook)},
      {"PyEval_SaveThread", reinterpret_cast<void*>(&save_thread_hook)},
  };
  int written = patch_imports(patches, 2);
  static std::atomic<int> calls{0};
  if (written > 0 || calls.fetch_add(1, std::memory_order_relaxed) == 0) {
    log_debug("python: %d import slot(s) of PyEval_RestoreThread/SaveThread now reach the preload", written);
  }
}

}  // namespace syncscope::preload

extern "C" __attribute__((visibility("default"))) void PyEval_RestoreThread(void* thread_state) {
  syncscope::preload::restore_thread_hook(thread_state);
}

extern "C" __attribute__((visibility("default"))) void* PyEval_SaveThread() {
  return syncscope::preload::save_thread_hook();
}
