#include "preload/recording/pinned_map.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace syncscope::preload {
namespace {

TEST(PinnedMap, AddFindRemove) {
  PinnedMap map;
  ASSERT_TRUE(map.init());
  map.add(0x10000, 0x1000);
  map.add(0x30000, 0x100);
  map.add(0x20000, 0x10);
  EXPECT_EQ(map.find(0x10000), PinnedMap::Lookup::kPinned);
  EXPECT_EQ(map.find(0x10fff), PinnedMap::Lookup::kPinned);
  EXPECT_EQ(map.find(0x11000), PinnedMap::Lookup::kMiss);
  EXPECT_EQ(map.find(0x0ffff), PinnedMap::Lookup::kMiss);
  EXPECT_EQ(map.find(0x2000f), PinnedMap::Lookup::kPinned);
  EXPECT_EQ(map.find(0x300ff), PinnedMap::Lookup::kPinned);
  map.remove(0x20000);
  EXPECT_EQ(map.find(0x20000), PinnedMap::Lookup::kMiss);
  EXPECT_EQ(map.find(0x30000), PinnedMap::Lookup::kPinned);
  map.remove(0x12345);  // unknown: no effect
  EXPECT_EQ(map.find(0x10000), PinnedMap::Lookup::kPinned);
}

TEST(PinnedMap, ReadersNeverSeeAStableRangeMissingWhileWritersChurn) {
  PinnedMap map;
  ASSERT_TRUE(map.init());
  map.add(0x500000, 0x1000);  // stays for the whole test
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (uint64_t i = 0; !stop.load(); i = (i + 1) % 1000) {
      map.add(0x100000 + i * 0x100, 0x80);
      map.remove(0x100000 + i * 0x100);
    }
  });
  int wrong = 0;
  for (int i = 0; i < 200000; ++i) {
    PinnedMap::Lookup r = map.find(0x500800);
    if (r == PinnedMap::Lookup::kMiss) ++wrong;
  }
  stop = true;
  writer.join();
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace syncscope::preload
