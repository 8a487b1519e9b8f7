#include "preload/core/clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace syncscope::preload {

namespace clock_detail {
bool g_use_tsc = false;
}

namespace {
uint64_t g_anchor_ticks = 0;
uint64_t g_anchor_ns = 0;

bool cpu_has_invariant_tsc() {
#if defined(__x86_64__)
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
  __cpuid(0x80000007u, eax, ebx, ecx, edx);
  return (edx & (1u << 8)) != 0;
#else
  return false;
#endif
}

// Reads ticks and ns as close together as possible: the pair with the
// shortest bracketing window of a few tries wins.
void sample(uint64_t* ticks, uint64_t* ns) {
  uint64_t best_window = ~0ull;
  for (int i = 0; i < 5; ++i) {
    uint64_t t0 = now_ticks();
    uint64_t n = monotonic_ns();
    uint64_t t1 = now_ticks();
    if (t1 - t0 < best_window) {
      best_window = t1 - t0;
      *ticks = t0 + (t1 - t0) / 2;
      *ns = n;
    }
  }
}
}  // namespace

void clock_init(bool force_monotonic) {
  clock_detail::g_use_tsc = !force_monotonic && cpu_has_invariant_tsc();
  sample(&g_anchor_ticks, &g_anchor_ns);
}

bool clock_uses_tsc() { return clock_detail::g_use_tsc; }

void TickConverter::refine() {
  if (!clock_detail::g_use_tsc) return;
  uint64_t ticks = 0, ns = 0;
  sample(&ticks, &ns);
  // Too short an interval gives a noisy rate: the collector (never the
  // target's threads) waits until the anchor is at least 5 ms old.
  constexpr uint64_t kMinInterval = 5000000ull;
  if (ns - g_anchor_ns < kMinInterval) {
    uint64_t wait = kMinInterval - (ns - g_anchor_ns);
    timespec ts{static_cast<time_t>(wait / 1000000000ull), static_cast<long>(wait % 1000000000ull)};
    nanosleep(&ts, nullptr);
    sample(&ticks, &ns);
  }
  if (ticks <= g_anchor_ticks) return;
  ns_per_tick_ = static_cast<double>(ns - g_anchor_ns) / static_cast<double>(ticks - g_anchor_ticks);
}

uint64_t TickConverter::duration_ns(uint64_t ticks) const {
  if (!clock_detail::g_use_tsc) return ticks;
  return static_cast<uint64_t>(static_cast<double>(ticks) * ns_per_tick_);
}

uint64_t TickConverter::to_ns(uint64_t ticks) const {
  if (!clock_detail::g_use_tsc) return ticks;
  double delta = static_cast<double>(static_cast<int64_t>(ticks - g_anchor_ticks)) * ns_per_tick_;
  return g_anchor_ns + static_cast<uint64_t>(static_cast<int64_t>(delta));
}

}  // namespace syncscope::preload
