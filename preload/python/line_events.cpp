// sys.monitoring's line callback (issue 27, docs/what-if.md, "The statement
// a read-back is in"). Only calls worth a stack say which Python line made
// them, so the what-if could not tell where a statement such as print(loss)
// begins and ends: its Python work before its first CUDA call and after its
// last was left in the step. python/sitecustomize.py (Python 3.12+) watches
// the code objects that step the optimizer with sys.monitoring's LINE,
// PY_RETURN and PY_YIELD events and registers the builtin made here as
// their callback; each event becomes a syncscope_python_line event: when,
// which code object (its kPyCode id), which line (0: the frame left it).
//
// The callback is a C builtin, not a Python function calling through
// ctypes: it runs for every line of the watched functions (a loop body's
// dozen lines a step, a library's training loop's hundred), so it must cost
// what recording a marker costs, not a Python call and a ctypes
// conversion. It is called with the GIL held, as code_id() needs.
#include <cstdint>
#include <sys/types.h>

#include "preload/core/clock.h"
#include "preload/core/in_hook.h"
#include "preload/core/real_function.h"
#include "preload/python/python_frames.h"
#include "preload/recording/recorder.h"
#include "preload/recording/thread_state.h"
#include "trace/api.h"
#include "trace/event.h"

namespace syncscope::preload {
namespace {

// CPython's PyMethodDef, whose layout the stable ABI fixes.
struct MethodDef {
  const char* name;
  void* function;
  int flags;
  const char* doc;
};
constexpr int kMethFastcall = 0x0080;  // METH_FASTCALL: (self, args, nargs)

struct LineApi {
  void* (*new_function)(MethodDef*, void*, void*);  // PyCFunction_NewEx
  long (*as_long)(void*);                           // PyLong_AsLong
  void (*err_clear)();
  void (*incref)(void*);
  void* none;  // &_Py_NoneStruct
};
LineApi g_line_api;

void record_line(void* code, uint32_t line) {
  if (!recording() || tls_in_hook) return;
  ThreadState* thread = current_thread_state();
  if (thread == nullptr) return;
  InHookScope in_hook;
  const uint32_t id = python_code_id(code);
  if (id == 0) return;
  Event e{};
  e.start_ns = e.end_ns = now_ticks();
  e.tid = thread->tid;
  e.api = static_cast<uint16_t>(ApiId::syncscope_python_line);
  e.dst = id;
  e.bytes = line;
  e.device = -1;
  thread->ring.push(e);
}

// LINE: (code, line); PY_RETURN and PY_YIELD: (code, offset, value).
void* on_event(void* /*self*/, void* const* args, ssize_t nargs) {
  if (nargs == 2) {
    const long line = g_line_api.as_long(args[1]);
    if (line < 0) g_line_api.err_clear();  // not an int: -1 with an error set
    record_line(args[0], line > 0 ? static_cast<uint32_t>(line) : 0);
  } else if (nargs == 3) {
    record_line(args[0], 0);
  }
  g_line_api.incref(g_line_api.none);
  return g_line_api.none;
}

MethodDef g_method{"syncscope_python_line", reinterpret_cast<void*>(&on_event), kMethFastcall,
                   "syncscope's sys.monitoring callback: records the line (or the return) as a trace event"};

template <typename Fn>
bool resolve(Fn* out, const char* name) {
  *out = reinterpret_cast<Fn>(find_real_function(RealLibrary::kPython, name));
  return *out != nullptr;
}

}  // namespace
}  // namespace syncscope::preload

// A new reference to the callback (a builtin function), or null when
// Python's API is not found: sitecustomize.py then watches no lines.
// Called through ctypes.PyDLL, with the GIL held.
extern "C" __attribute__((visibility("default"))) void* syncscope_python_line_callback() {
  using namespace ::syncscope::preload;
  LineApi api{};
  if (!resolve(&api.new_function, "PyCFunction_NewEx") || !resolve(&api.as_long, "PyLong_AsLong") ||
      !resolve(&api.err_clear, "PyErr_Clear") || !resolve(&api.incref, "Py_IncRef")) {
    return nullptr;
  }
  api.none = find_real_function(RealLibrary::kPython, "_Py_NoneStruct");
  if (api.none == nullptr) return nullptr;
  g_line_api = api;
  return api.new_function(&g_method, nullptr, nullptr);
}
