#include "tools/duration.h"

#include <gtest/gtest.h>

namespace syncscope {
namespace {

TEST(Duration, UnitsAndBareSeconds) {
  EXPECT_EQ(parse_duration_ms("30s"), 30000);
  EXPECT_EQ(parse_duration_ms("10"), 10000);
  EXPECT_EQ(parse_duration_ms("2.5"), 2500);
  EXPECT_EQ(parse_duration_ms("500ms"), 500);
  EXPECT_EQ(parse_duration_ms("2m"), 120000);
  EXPECT_EQ(parse_duration_ms("1h"), 3600000);
}

TEST(Duration, RejectsWhatIsNotAPositiveDuration) {
  for (const char* bad : {"", "soon", "0", "-5s", "10 s", "5x", "nan", "inf", "0.0001ms", "s"}) {
    EXPECT_FALSE(parse_duration_ms(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace syncscope
