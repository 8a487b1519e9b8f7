// Device memory over time, from the recorded allocation calls alone (the
// HTML report's memory chart): what cudaMalloc and its kin handed out and
// was not yet freed, plus driver virtual memory mapped (cuMemMap until
// cuMemUnmap: PyTorch's expandable segments). For PyTorch this is its
// caching allocator's reserved memory, not the tensors inside it.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/reader.h"

namespace syncscope {

struct MemoryPoint {
  uint64_t ns = 0;     // trace clock: when the call returned
  uint64_t bytes = 0;  // live bytes from then on
};

struct DeviceMemory {
  std::vector<MemoryPoint> points;  // one per change, by time; empty: no allocation recorded
  uint64_t peak = 0;
  uint64_t unknown_frees = 0;  // frees of memory allocated before the recording started (attach)
};

// Failed calls change nothing. Allocations of unknown size (0 bytes) are
// not counted.
DeviceMemory device_memory(const ProcessTrace& trace);

}  // namespace syncscope
