// Attributing calls made on threads without Python frames (autograd's
// backward threads, C++ workers) to the Python line that waited for them.
//
// The recorder leaves a syncscope_gil_wait event when a Python thread takes
// the GIL back after a frameless call of another thread was recorded while
// it had released it (preload/python/python_resume.cpp): its span is the wait, its
// stack the waiting line (`loss.backward()`). A frameless call inside such
// a span belongs to that line; when several threads waited at once, the
// thread that waits most often (the main thread) is preferred.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "segmentation/segmentation.h"
#include "trace/event.h"

namespace syncscope {

// `has_python(stack_id)`: whether that stack carries Python frames.
// Fills segmentation->waiters for every frameless call
// with a stack that lies inside another thread's wait.
void attribute_to_waiters(const std::vector<Event>& events, const std::function<bool(uint32_t)>& has_python,
                          Segmentation* segmentation);

}  // namespace syncscope
