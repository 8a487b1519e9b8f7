// Streams being captured into a CUDA graph. Work issued to such a stream does
// not execute at capture time, so it must never be reported as a sync or a
// copy. Checking costs one relaxed load while no capture is active.
#pragma once

#include <cstdint>

namespace syncscope::preload {

void capture_started(uint64_t stream);
void capture_ended(uint64_t stream);
bool stream_is_capturing(uint64_t stream);
// True while any capture is active: a legacy-stream sync then cannot be a real sync.
bool any_capture_active();

}  // namespace syncscope::preload
