#include "report/units.h"

#include <gtest/gtest.h>

namespace syncscope {
namespace {

TEST(Units, Durations) {
  EXPECT_EQ(format_duration(850), "850 ns");
  EXPECT_EQ(format_duration(12345), "12.3 µs");
  EXPECT_EQ(format_duration(4560000), "4.56 ms");
  EXPECT_EQ(format_duration(1230000000), "1.23 s");
}

TEST(Units, Bytes) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(4096), "4.0 KiB");
  EXPECT_EQ(format_bytes(1 << 20), "1.00 MiB");
  EXPECT_EQ(format_bytes(5ull << 29), "2.50 GiB");
}

}  // namespace
}  // namespace syncscope
