#include "preload/python/python_frames.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "preload/core/log.h"
#include "preload/core/real_function.h"
#include "trace/writer.h"

namespace syncscope::preload {
namespace {

// The CPython C API, as opaque pointers: no Python headers, any 3.9+ version.
struct PythonApi {
  void* (*thread_state)();
  void* (*this_thread_state)();
  void* (*thread_frame)(void*);
  void* (*frame_code)(void*);
  int (*frame_line)(void*);
  int (*frame_lasti)(void*);  // 3.11+; null before
  void* (*frame_back)(void*);
  void (*incref)(void*);
  void (*decref)(void*);
  void* (*get_attr)(void*, const char*);
  const char* (*as_utf8)(void*);
  long (*as_long)(void*);
  void (*err_fetch)(void**, void**, void**);
  void (*err_restore)(void*, void*, void*);
  void (*err_clear)();
};

PythonApi g_api;
std::atomic<int> g_state{0};  // 0 not looked up, 1 available, 2 absent
std::atomic<uint32_t> g_absent_calls{0};

template <typename Fn>
bool resolve(Fn* out, const char* name) {
  *out = reinterpret_cast<Fn>(find_real_function(RealLibrary::kPython, name));
  return *out != nullptr;
}

bool load_api() {
  PythonApi api{};
  bool ok = resolve(&api.thread_frame, "PyThreadState_GetFrame") && resolve(&api.frame_code, "PyFrame_GetCode") &&
            resolve(&api.frame_line, "PyFrame_GetLineNumber") && resolve(&api.frame_back, "PyFrame_GetBack") &&
            resolve(&api.incref, "Py_IncRef") && resolve(&api.decref, "Py_DecRef") &&
            resolve(&api.get_attr, "PyObject_GetAttrString") && resolve(&api.as_utf8, "PyUnicode_AsUTF8") &&
            resolve(&api.as_long, "PyLong_AsLong") && resolve(&api.err_fetch, "PyErr_Fetch") &&
            resolve(&api.err_restore, "PyErr_Restore") && resolve(&api.err_clear, "PyErr_Clear");
  // The thread state without the fatal error PyThreadState_Get raises on NULL.
  ok = ok && resolve(&api.this_thread_state, "PyGILState_GetThisThreadState");
  if (ok && !resolve(&api.frame_lasti, "PyFrame_GetLasti")) api.frame_lasti = nullptr;  // optional
  ok = ok && (resolve(&api.thread_state, "PyThreadState_GetUnchecked") ||
              resolve(&api.thread_state, "_PyThreadState_UncheckedGet"));
  if (ok) g_api = api;
  return ok;
}

bool python_available() {
  int state = g_state.load(std::memory_order_acquire);
  if (__builtin_expect(state == 1, 1)) return true;
  // Python may be loaded later (embedded, dlopen): look again now and then.
  if (state == 2 && (g_absent_calls.fetch_add(1, std::memory_order_relaxed) & 4095) != 0) return false;
  bool ok = load_api();
  if (ok || state == 0) log_debug("python C API %s", ok ? "found: Python frames enabled" : "not found");
  g_state.store(ok ? 1 : 2, std::memory_order_release);
  return ok;
}

// Code objects seen so far: pointer -> id. Written only under the GIL (one
// writer at a time), read by the collector through the publication order.
constexpr uint32_t kCodeCapacity = 1u << 15;
struct CodeSlot {
  std::atomic<uintptr_t> code;
  uint32_t id;
};
struct CodeInfo {
  const char* file;
  const char* name;
  uint32_t first_line;
};
CodeSlot g_slots[kCodeCapacity];
CodeInfo g_codes[kCodeCapacity + 1];  // by id
std::atomic<uint32_t> g_code_count{0};

char* copy_string(void* object) {
  const char* text = object ? g_api.as_utf8(object) : nullptr;
  if (text == nullptr) {
    g_api.err_clear();
    text = "?";
  }
  char* out = strdup(text);
  return out ? out : const_cast<char*>("?");
}

long long_attr(void* object, const char* name) {
  void* value = g_api.get_attr(object, name);
  if (value == nullptr) {
    g_api.err_clear();
    return 0;
  }
  long v = g_api.as_long(value);
  g_api.decref(value);
  return v;
}

char* string_attr(void* object, const char* name) {
  void* value = g_api.get_attr(object, name);
  if (value == nullptr) g_api.err_clear();
  char* s = copy_string(value);
  if (value) g_api.decref(value);
  return s;
}

// Id of a code object, naming it on first sight. 0 when the table is full.
uint32_t code_id(void* code) {
  auto key = reinterpret_cast<uintptr_t>(code);
  uint32_t index = static_cast<uint32_t>((key >> 4) * 2654435761u) & (kCodeCapacity - 1);
  for (uint32_t probe = 0; probe < 64; ++probe, index = (index + 1) & (kCodeCapacity - 1)) {
    uintptr_t seen = g_slots[index].code.load(std::memory_order_relaxed);
    if (seen == key) return g_slots[index].id;
    if (seen != 0) continue;
    uint32_t id = g_code_count.load(std::memory_order_relaxed) + 1;
    if (id > kCodeCapacity) return 0;
    // Naming calls into Python: keep any exception the program has pending.
    void *type = nullptr, *value = nullptr, *traceback = nullptr;
    g_api.err_fetch(&type, &value, &traceback);
    char* qualname = string_attr(code, "co_qualname");  // 3.11+
    if (std::strcmp(qualname, "?") == 0) {
      std::free(qualname);
      qualname = string_attr(code, "co_name");
    }
    g_codes[id] =
        CodeInfo{string_attr(code, "co_filename"), qualname, static_cast<uint32_t>(long_attr(code, "co_firstlineno"))};
    g_api.err_restore(type, value, traceback);
    g_api.incref(code);  // kept alive: its address can never be reused
    g_slots[index].id = id;
    g_slots[index].code.store(key, std::memory_order_relaxed);
    g_code_count.store(id, std::memory_order_release);
    return id;
  }
  return 0;
}

// Lines by (code id, instruction offset). PyFrame_GetLineNumber decodes the
// code object's line table from its start on every call: with a library's
// deep stacks (Lightning: ~40 frames a capture) that was two thirds of the
// recorder's cost per event (issue 25: 9.3 µs a capture with Python frames,
// 3.3 µs without, on an H200). A code object never changes and is kept
// alive (code_id), so an offset's line never changes: each is decoded once.
// Written and read only under the GIL, like the code table.
constexpr uint32_t kLineCapacity = 1u << 16;
struct LineSlot {
  uint32_t code_id;  // 0: empty
  int32_t lasti;
  int32_t line;
};
LineSlot g_lines[kLineCapacity];

int frame_line(void* frame, uint32_t code) {
  const int lasti = (g_api.frame_lasti != nullptr && code != 0) ? g_api.frame_lasti(frame) : -1;
  if (lasti < 0) return g_api.frame_line(frame);
  uint32_t index = (code * 2654435761u ^ static_cast<uint32_t>(lasti) * 40503u) & (kLineCapacity - 1);
  for (uint32_t probe = 0; probe < 8; ++probe, index = (index + 1) & (kLineCapacity - 1)) {
    LineSlot& slot = g_lines[index];
    if (slot.code_id == code && slot.lasti == lasti) return slot.line;
    if (slot.code_id != 0) continue;
    const int line = g_api.frame_line(frame);
    slot = LineSlot{code, lasti, line};
    return line;
  }
  return g_api.frame_line(frame);  // a crowded neighbourhood: decode, keep nothing
}

}  // namespace

uint32_t capture_python_stack(uint64_t* frames, uint32_t max, bool* gil_released) {
  if (!python_available()) return 0;
  // This thread holds the GIL when the interpreter's current thread state is
  // its own. (PyGILState_Check alone is not enough: it answers 1 whenever
  // its checking is disabled, as it is in PyTorch processes.)
  void* mine = g_api.this_thread_state();
  void* thread = g_api.thread_state();
  if (mine == nullptr) return 0;  // not a thread Python knows
  if (thread != mine) {
    if (gil_released != nullptr) *gil_released = true;  // frames readable once it takes the GIL back
    return 0;
  }
  void* frame = g_api.thread_frame(thread);  // new reference
  uint32_t depth = 0;
  while (frame != nullptr && depth < max) {
    void* code = g_api.frame_code(frame);  // new reference
    uint32_t id = code ? code_id(code) : 0;
    int line = frame_line(frame, id);
    if (code) g_api.decref(code);
    frames[depth++] = (uint64_t{id} << 32) | static_cast<uint32_t>(line < 0 ? 0 : line);
    void* back = g_api.frame_back(frame);  // new reference
    g_api.decref(frame);
    frame = back;
  }
  if (frame != nullptr) g_api.decref(frame);
  return depth;
}

uint32_t python_code_id(void* code) { return (code != nullptr && python_available()) ? code_id(code) : 0; }

void publish_python_code(TraceWriter& writer, uint32_t* cursor) {
  uint32_t count = g_code_count.load(std::memory_order_acquire);
  for (uint32_t id = *cursor + 1; id <= count; ++id) {
    const CodeInfo& info = g_codes[id];
    writer.add_python_code(id, info.first_line, info.file ? info.file : "?", info.name ? info.name : "?");
  }
  *cursor = count;
}

}  // namespace syncscope::preload
