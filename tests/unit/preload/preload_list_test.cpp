#include "preload/core/preload_list.h"

#include <gtest/gtest.h>

namespace syncscope::preload {
namespace {

TEST(PreloadList, FindsTheLibraryByItsLastPathComponent) {
  EXPECT_TRUE(preload_list_names("/opt/syncscope/lib/libsyncscope.so", "libsyncscope.so"));
  EXPECT_TRUE(preload_list_names("libsyncscope.so", "libsyncscope.so"));
  EXPECT_TRUE(preload_list_names("/a/libjemalloc.so:/b/libsyncscope.so", "libsyncscope.so"));
  EXPECT_TRUE(preload_list_names("  /a/libfoo.so   /b/libsyncscope.so ", "libsyncscope.so"));
}

TEST(PreloadList, OtherLibrariesAndPrefixesDoNotCount) {
  EXPECT_FALSE(preload_list_names("", "libsyncscope.so"));
  EXPECT_FALSE(preload_list_names(nullptr, "libsyncscope.so"));
  EXPECT_FALSE(preload_list_names("/a/libsyncscope.so.old", "libsyncscope.so"));
  EXPECT_FALSE(preload_list_names("/a/mylibsyncscope.so", "libsyncscope.so"));
  EXPECT_FALSE(preload_list_names("/libsyncscope.so/libfoo.so", "libsyncscope.so"));
  EXPECT_FALSE(preload_list_names("/a/libsyncscope.so", ""));
}

}  // namespace
}  // namespace syncscope::preload
