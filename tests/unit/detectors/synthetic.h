// Synthetic event streams for detector tests: a tiny "program" that appends
// calls with times, like the recorder would.
#pragma once

#include <vector>

#include "trace/api.h"
#include "trace/event.h"

namespace syncscope::testing {

class Stream {
 public:
  // Appends a call of `duration` ns at the current time and advances it.
  Event& call(ApiId api, uint64_t duration = 1000, uint64_t stream = 0x100, uint32_t stack = 0) {
    Event e{};
    e.api = static_cast<uint16_t>(api);
    e.start_ns = now_;
    e.end_ns = now_ + duration;
    e.stream = stream;
    e.stack_id = stack;
    e.tid = 1;
    e.device = -1;
    ApiFamily f = api_family(e.api);
    if (f == ApiFamily::kLaunch) e.flags |= kFlagAsync;
    now_ += duration + gap_;
    events_.push_back(e);
    return events_.back();
  }
  Event& launch(uint64_t kernel, uint64_t stream = 0x100) {
    Event& e = call(ApiId::__cudaLaunchKernel, 3000, stream);
    e.dst = kernel;
    return e;
  }
  Event& copy(ApiId api, Direction d, HostMem m, uint64_t bytes, bool async, uint32_t stack, uint64_t duration = 2000,
              uint64_t stream = 0x100) {
    Event& e = call(api, duration, stream, stack);
    e.direction = static_cast<uint8_t>(d);
    e.host_mem = static_cast<uint8_t>(m);
    e.bytes = bytes;
    if (async) e.flags |= kFlagAsync;
    return e;
  }
  // A Python line event (syncscope_python_line, docs/trace-format.md): line
  // `line` of the code object `code` begins.
  Event& python_line(uint32_t code, uint32_t line) {
    Event& e = call(ApiId::syncscope_python_line, 0, 0);
    e.dst = code;
    e.bytes = line;
    return e;
  }
  void idle(uint64_t ns) { now_ += ns; }
  uint64_t now() const { return now_; }
  // Appends a call that spans [start, now()) (a wait around calls already made).
  Event& span_since(ApiId api, uint64_t start, uint32_t stack) {
    Event e{};
    e.api = static_cast<uint16_t>(api);
    e.start_ns = start;
    e.end_ns = now_;
    e.stack_id = stack;
    e.tid = 1;
    e.device = -1;
    events_.push_back(e);
    return events_.back();
  }
  const std::vector<Event>& events() const { return events_; }

 private:
  std::vector<Event> events_;
  uint64_t now_ = 1000000;
  uint64_t gap_ = 500;
};

}  // namespace syncscope::testing
