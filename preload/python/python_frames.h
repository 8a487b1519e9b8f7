// Python attribution: when the calling thread holds the GIL, the Python
// frames of a CUDA call (code object and line, innermost first) are captured
// with the CPython C API, found at run time (core/real_function.h), so a program
// without Python pays one failed lookup and nothing more. Code objects are named
// (file, function, first line) once, when first seen, and kept alive so the
// cache can never name a recycled address.
#pragma once

#include <cstdint>

namespace syncscope {
class TraceWriter;
}

namespace syncscope::preload {

// Fills frames[] with (code id << 32 | line) for the calling thread's Python
// stack when it holds the GIL; returns the depth (0 otherwise). When the
// thread runs Python but has released the GIL, *gil_released is set: its
// frames can be read once it takes the GIL back.
uint32_t capture_python_stack(uint64_t* frames, uint32_t max, bool* gil_released = nullptr);

// The id (kPyCode) of a code object, naming it on first sight, as the
// frames above do. Only with the GIL held (line_events.cpp's callback);
// 0 when Python's API is not found or the table is full.
uint32_t python_code_id(void* code);

// Makes sure extension modules' calls to PyEval_RestoreThread reach the
// preload (python_resume.cpp); cheap when no object was loaded since.
void route_gil_reacquire_here();

// A call worth a stack got no Python frames at its time (its thread runs no
// Python, or had released the GIL): a Python thread that waited meanwhile
// records what it was waiting in (python_resume.cpp).
void note_frameless_call(uint32_t tid, uint64_t ticks);

// Collector: writes a kPyCode record for every code object named since `cursor`.
void publish_python_code(TraceWriter& writer, uint32_t* cursor);

}  // namespace syncscope::preload
