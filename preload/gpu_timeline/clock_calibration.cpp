#include "preload/gpu_timeline/clock_calibration.h"

#include "preload/core/clock.h"

namespace syncscope::preload::cupti {
namespace {

std::atomic<int64_t> g_offset_ns{0};  // CUPTI timestamp - CLOCK_MONOTONIC

}  // namespace

std::atomic<bool> g_timestamp_callback{false};

uint64_t CUPTIAPI trace_clock_now() { return monotonic_ns(); }

void calibrate_offset(const CuptiApi& api) {
  if (g_timestamp_callback.load(std::memory_order_relaxed) || api.get_timestamp == nullptr) return;
  uint64_t best_window = ~0ull;
  int64_t best = 0;
  for (int i = 0; i < 5; ++i) {
    uint64_t before = monotonic_ns();
    uint64_t cupti = 0;
    if (api.get_timestamp(&cupti) != CUPTI_SUCCESS) return;
    uint64_t after = monotonic_ns();
    if (after - before < best_window) {
      best_window = after - before;
      best = static_cast<int64_t>(cupti) - static_cast<int64_t>(before + (after - before) / 2);
    }
  }
  g_offset_ns.store(best, std::memory_order_relaxed);
}

uint64_t to_trace_clock(uint64_t cupti_ns) {
  if (cupti_ns == 0 || g_timestamp_callback.load(std::memory_order_relaxed)) return cupti_ns;
  return static_cast<uint64_t>(static_cast<int64_t>(cupti_ns) - g_offset_ns.load(std::memory_order_relaxed));
}

}  // namespace syncscope::preload::cupti
