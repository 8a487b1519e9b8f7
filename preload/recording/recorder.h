// The recorder's global switch and its life cycle inside the target process:
// initialised by the library constructor, shut down (final flush) by the
// destructor at exit, reset in a forked child.
#pragma once

#include <atomic>

namespace syncscope::preload {

extern std::atomic<bool> g_recording;

// One relaxed load: the whole cost of a hooked call while not recording.
inline bool recording() { return g_recording.load(std::memory_order_relaxed); }

// Stops recording for good (trace unwritable, shutdown): hooks pass through.
void stop_recording();

}  // namespace syncscope::preload
