// The recorder's time source. A hooked launch must cost tens of nanoseconds,
// so the hot path reads the invariant TSC (a few ns) when the CPU has one and
// leaves conversion to nanoseconds to the collector thread. Without an
// invariant TSC (or with SYNCSCOPE_CLOCK=monotonic) ticks are CLOCK_MONOTONIC
// nanoseconds and conversion is the identity.
#pragma once

#include <cstdint>
#include <ctime>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace syncscope::preload {

namespace clock_detail {
extern bool g_use_tsc;
}

inline uint64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t monotonic_ns() { return clock_ns(CLOCK_MONOTONIC); }
inline uint64_t realtime_ns() { return clock_ns(CLOCK_REALTIME); }
// CPU time the calling thread has used.
inline uint64_t thread_cpu_ns() { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

inline uint64_t now_ticks() {
#if defined(__x86_64__)
  if (clock_detail::g_use_tsc) return __rdtsc();
#endif
  return monotonic_ns();
}

// Chooses the tick source and takes the first calibration anchor.
void clock_init(bool force_monotonic);
bool clock_uses_tsc();

// Converts ticks to CLOCK_MONOTONIC ns. Owned by the collector: refine() takes
// a new (ticks, ns) sample and re-estimates the rate over the whole interval
// since clock_init, so the error stays at the sampling jitter (~100 ns) however
// long the process runs.
class TickConverter {
 public:
  void refine();
  uint64_t to_ns(uint64_t ticks) const;
  // A length of time in ticks, in ns.
  uint64_t duration_ns(uint64_t ticks) const;

 private:
  double ns_per_tick_ = 1.0;
};

}  // namespace syncscope::preload
