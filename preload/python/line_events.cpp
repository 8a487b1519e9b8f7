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
//
// A day-long job must not fill its trace with lines: after
// kMaxLineEvents events the callback answers sys.monitoring.DISABLE,
// which turns each line's event off where it fires next, and the watch
// costs nothing more. The analysis carries what the lines showed over to
// the executions after them (whatif/statement_span.h).
#include <atomic>
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

// 16 MB of trace: a Trainer loop's ~200 lines a step for 1,200 steps, a
// plain loop's dozen for 20,000.
constexpr uint32_t kMaxLineEvents = 250000;
std::atomic<uint32_t> g_line_events{0};

struct LineApi {
  void* (*new_function)(MethodDef*, void*, void*);  // PyCFunction_NewEx
  long (*as_long)(void*);                           // PyLong_AsLong
  void (*err_clear)();
  void (*incref)(void*);
  void* none;     // &_Py_NoneStruct
  void* disable;  // sys.monitoring.DISABLE
};
LineApi g_line_api;

// False once the budget is spent.
bool record_line(void* code, uint32_t line) {
  if (!recording() || tls_in_hook) return true;
  if (g_line_events.fetch_add(1, std::memory_order_relaxed) >= kMaxLineEvents) return false;
  ThreadState* thread = current_thread_state();
  if (thread == nullptr) return true;
  InHookScope in_hook;
  const uint32_t id = python_code_id(code);
  if (id == 0) return true;
  Event e{};
  e.start_ns = e.end_ns = now_ticks();
  e.tid = thread->tid;
  e.api = static_cast<uint16_t>(ApiId::syncscope_python_line);
  e.dst = id;
  e.bytes = line;
  e.device = -1;
  // Half the ring stays for the CUDA calls: a Python loop inside the
  // watched function may run lines far faster than the collector drains.
  thread->ring.push_if_room(e, thread->ring.capacity() / 2);
  return true;
}

// LINE: (code, line); PY_RETURN and PY_YIELD: (code, offset, value).
void* on_event(void* /*self*/, void* const* args, ssize_t nargs) {
  bool more = true;
  if (nargs == 2) {
    const long line = g_line_api.as_long(args[1]);
    if (line < 0) g_line_api.err_clear();  // not an int: -1 with an error set
    more = record_line(args[0], line > 0 ? static_cast<uint32_t>(line) : 0);
  } else if (nargs == 3) {
    more = record_line(args[0], 0);
  }
  void* answer = more ? g_line_api.none : g_line_api.disable;
  g_line_api.incref(answer);
  return answer;
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
// `disable`: sys.monitoring.DISABLE, kept for good. Called through
// ctypes.PyDLL, with the GIL held.
extern "C" __attribute__((visibility("default"))) void* syncscope_python_line_callback(void* disable) {
  using namespace ::syncscope::preload;
  LineApi api{};
  if (!resolve(&api.new_function, "PyCFunction_NewEx") || !resolve(&api.as_long, "PyLong_AsLong") ||
      !resolve(&api.err_clear, "PyErr_Clear") || !resolve(&api.incref, "Py_IncRef")) {
    return nullptr;
  }
  api.none = find_real_function(RealLibrary::kPython, "_Py_NoneStruct");
  if (api.none == nullptr || disable == nullptr) return nullptr;
  api.incref(disable);
  api.disable = disable;
  g_line_api = api;
  return api.new_function(&g_method, nullptr, nullptr);
}
