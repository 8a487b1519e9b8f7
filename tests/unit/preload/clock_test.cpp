#include "preload/core/clock.h"

#include <gtest/gtest.h>

#include <thread>

namespace syncscope::preload {
namespace {

TEST(Clock, TicksConvertToMonotonicNanoseconds) {
  clock_init(false);
  TickConverter converter;
  uint64_t t0 = now_ticks();
  uint64_t m0 = monotonic_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  uint64_t t1 = now_ticks();
  uint64_t m1 = monotonic_ns();
  converter.refine();
  int64_t a = static_cast<int64_t>(converter.to_ns(t0)) - static_cast<int64_t>(m0);
  int64_t b = static_cast<int64_t>(converter.to_ns(t1)) - static_cast<int64_t>(m1);
  // Within 50 µs of the real clock, and the 20 ms interval within 1%.
  EXPECT_LT(std::abs(a), 50000);
  EXPECT_LT(std::abs(b), 50000);
  double measured = static_cast<double>(converter.to_ns(t1) - converter.to_ns(t0));
  double actual = static_cast<double>(m1 - m0);
  EXPECT_NEAR(measured / actual, 1.0, 0.01);
}

TEST(Clock, MonotonicFallbackIsIdentity) {
  clock_init(true);
  EXPECT_FALSE(clock_uses_tsc());
  TickConverter converter;
  converter.refine();
  EXPECT_EQ(converter.to_ns(12345), 12345u);
  clock_init(false);
}

}  // namespace
}  // namespace syncscope::preload
