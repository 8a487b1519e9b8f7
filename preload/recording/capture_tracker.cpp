#include "preload/recording/capture_tracker.h"

#include <atomic>

namespace syncscope::preload {
namespace {

constexpr int kMaxCaptures = 64;
std::atomic<int> g_active{0};
std::atomic<uint64_t> g_streams[kMaxCaptures];  // 0 = free slot

}  // namespace

void capture_started(uint64_t stream) {
  for (auto& slot : g_streams) {
    uint64_t expected = 0;
    if (slot.compare_exchange_strong(expected, stream, std::memory_order_acq_rel)) {
      g_active.fetch_add(1, std::memory_order_release);
      return;
    }
  }
}

void capture_ended(uint64_t stream) {
  for (auto& slot : g_streams) {
    uint64_t expected = stream;
    if (slot.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) {
      g_active.fetch_sub(1, std::memory_order_release);
      return;
    }
  }
}

bool any_capture_active() { return g_active.load(std::memory_order_relaxed) > 0; }

bool stream_is_capturing(uint64_t stream) {
  // The legacy default stream (0) cannot be captured, and 0 marks a free slot.
  if (stream == 0 || !any_capture_active()) return false;
  for (const auto& slot : g_streams) {
    if (slot.load(std::memory_order_acquire) == stream) return true;
  }
  return false;
}

}  // namespace syncscope::preload
