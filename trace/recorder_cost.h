// What the recorder itself cost the recorded process (process keys
// recorder.*, docs/trace-format.md): the report prints it, and the what-if
// replay keeps the stack captures' part out of what a fix saves
// (whatif/trace_program.h).
#pragma once

#include <cstdint>

#include "trace/reader.h"

namespace syncscope {

struct RecorderCost {
  bool known = false;
  uint64_t capture_ns = 0;  // the program's threads, capturing stacks and Python frames
  uint64_t captures = 0;
  uint64_t collector_cpu_ns = 0;  // the recorder's own thread
};

// From the trace's process keys; known is false for a trace without them
// (older recorders, a recording cut short before its end).
RecorderCost recorder_cost_of(const ProcessTrace& trace);

// The mean host time one capture took, ns; 0 when not known.
uint64_t mean_capture_ns(const RecorderCost& cost);

}  // namespace syncscope
