// NVTX ranges as events (preload/gpu_timeline/nvtx_injection.cpp, docs/nvtx.md).
#pragma once

#include <cstdint>

namespace syncscope {
class TraceWriter;
}

namespace syncscope::preload {

// Range names are kString records numbered from here, apart from the GPU
// timeline's kernel names (numbered from 1).
inline constexpr uint32_t kNvtxStringIdBase = 0x80000000u;

// Collector thread: writes the names interned since the last drain.
void nvtx_drain(TraceWriter& writer);
// A new trace file (a new session): every name is written again.
void nvtx_forget_written();

}  // namespace syncscope::preload
