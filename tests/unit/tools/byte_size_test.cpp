#include "tools/byte_size.h"

#include <gtest/gtest.h>

namespace syncscope {
namespace {

TEST(ByteSize, UnitsAreBinaryAndABareNumberIsMiB) {
  EXPECT_EQ(parse_byte_size("512"), uint64_t{512} << 20);
  EXPECT_EQ(parse_byte_size("500M"), uint64_t{500} << 20);
  EXPECT_EQ(parse_byte_size("800MB"), uint64_t{800} << 20);
  EXPECT_EQ(parse_byte_size("2G"), uint64_t{2} << 30);
  EXPECT_EQ(parse_byte_size("1.5GiB"), uint64_t{3} << 29);
  EXPECT_EQ(parse_byte_size("4096K"), uint64_t{4} << 20);
  EXPECT_EQ(parse_byte_size("1T"), uint64_t{1} << 40);
}

TEST(ByteSize, AnythingElseIsRefused) {
  for (const char* bad : {"", "G", "-1G", "0", "0M", "5X", "1GG", "nan", "inf", "1e300G", " 1G", "1 G"}) {
    EXPECT_FALSE(parse_byte_size(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace syncscope
