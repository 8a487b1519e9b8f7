#include "tools/preload_locator.h"

#include <gtest/gtest.h>

namespace syncscope {
namespace {

TEST(PreloadLocator, EnvironmentOverrideWins) {
  auto c = preload_candidates("/custom/libsyncscope.so", "/opt/syncscope/bin/syncscope");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0], "/custom/libsyncscope.so");
}

TEST(PreloadLocator, BuildAndInstallLayout) {
  auto c = preload_candidates("", "/opt/syncscope/bin/syncscope");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0], "/opt/syncscope/lib/libsyncscope.so");
  EXPECT_EQ(c[1], "/opt/syncscope/bin/libsyncscope.so");
}

}  // namespace
}  // namespace syncscope
