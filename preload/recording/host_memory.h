// Classifying the host side of a copy: pinned, pageable or managed. The
// pinned map answers most copies; on a miss the runtime is asked once
// (cudaPointerGetAttributes, ~1 µs on a real GPU).
#pragma once

#include <cstdint>

#include "trace/event.h"

namespace syncscope::preload {

enum class MemoryKind : uint8_t { kHostPageable, kHostPinned, kDevice, kManaged, kUnknown };

// allow_query=false: pinned map only (inside graph capture, where extra runtime
// calls could invalidate the capture).
MemoryKind classify_pointer(const void* ptr, bool allow_query = true);
HostMem host_mem_of(MemoryKind kind);

}  // namespace syncscope::preload
