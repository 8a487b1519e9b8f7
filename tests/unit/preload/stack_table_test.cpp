#include "preload/recording/stack_table.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "preload/recording/stack_capture.h"
#include "trace/format.h"

namespace syncscope::preload {
namespace {

StackTable& table() {
  static StackTable* t = [] {
    auto* s = new StackTable();
    EXPECT_TRUE(s->init());
    return s;
  }();
  return *t;
}

TEST(StackTable, SameStackSameIdDifferentStackDifferentId) {
  uint64_t a[] = {0x1000, 0x2000, 0x3000};
  uint64_t b[] = {0x1000, 0x2000, 0x3001};
  uint32_t ia = table().intern(a, 3);
  uint32_t ib = table().intern(b, 3);
  EXPECT_NE(ia, 0u);
  EXPECT_NE(ib, 0u);
  EXPECT_NE(ia, ib);
  EXPECT_EQ(table().intern(a, 3), ia);
  EXPECT_EQ(table().intern(a, 2), table().intern(a, 2));
  EXPECT_NE(table().intern(a, 2), ia);
  EXPECT_EQ(table().intern(a, 0), 0u);
}

TEST(StackTable, PythonFramesAreStackIdentity) {
  uint64_t native[] = {0x5000, 0x6000};
  uint64_t line10[] = {(uint64_t{3} << 32) | 10};
  uint64_t line11[] = {(uint64_t{3} << 32) | 11};
  uint32_t a = table().intern(native, 2, line10, 1);
  uint32_t b = table().intern(native, 2, line11, 1);
  EXPECT_NE(a, b);  // same native stack, different Python line
  EXPECT_NE(a, table().intern(native, 2));
  EXPECT_EQ(a, table().intern(native, 2, line10, 1));
}

// An owed event keeps only its native-only stack id; its PCs come back from
// the table when the Python frames are added (preload/python/python_resume.cpp).
TEST(StackTable, NativeFramesOfAnId) {
  uint64_t native[] = {0x7000, 0x7100, 0x7200};
  uint32_t id = table().intern(native, 3);
  const uint64_t* pcs = nullptr;
  uint32_t depth = 0;
  ASSERT_TRUE(table().native_frames(id, &pcs, &depth));
  ASSERT_EQ(depth, 3u);
  EXPECT_EQ(pcs[0], 0x7000u);
  EXPECT_EQ(pcs[2], 0x7200u);
  EXPECT_FALSE(table().native_frames(0, &pcs, &depth));
  EXPECT_FALSE(table().native_frames(StackTable::kCapacity + 1, &pcs, &depth));
}

TEST(StackTable, ConcurrentInterningPublishesEachStackOnce) {
  constexpr int kThreads = 4;
  constexpr int kStacks = 500;
  std::vector<std::thread> threads;
  std::vector<std::vector<uint32_t>> ids(kThreads, std::vector<uint32_t>(kStacks));
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int s = 0; s < kStacks; ++s) {
        uint64_t pcs[4] = {0xAA0000u + static_cast<uint64_t>(s), 0xBB, 0xCC, static_cast<uint64_t>(s)};
        ids[t][s] = table().intern(pcs, 4);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int s = 0; s < kStacks; ++s) {
    for (int t = 1; t < kThreads; ++t) EXPECT_EQ(ids[t][s], ids[0][s]);
  }
  // Each id is published exactly once, with its PCs.
  std::multiset<uint32_t> published;
  uint32_t cursor = 0;
  StackTable::Published p{};
  while (table().next_published(&cursor, &p)) {
    published.insert(p.id);
    ASSERT_GE(p.depth, 2u);
  }
  for (int s = 0; s < kStacks; ++s) EXPECT_EQ(published.count(ids[0][s]), 1u);
}

__attribute__((noinline)) uint32_t capture_here(uint64_t* pcs, bool skip_own_frames) {
  uint32_t depth = capture_stack(pcs, kMaxStackDepth, skip_own_frames);
  asm volatile("" ::: "memory");  // keep the call from becoming a tail call
  return depth;
}

TEST(StackCapture, CapturesTheCallersFrames) {
  stack_capture_init();
  uint64_t pcs[kMaxStackDepth];
  uint32_t depth = capture_here(pcs, false);
  ASSERT_GE(depth, 3u);
  auto fn = reinterpret_cast<uint64_t>(&capture_here);
  bool found = false;
  for (uint32_t i = 0; i < depth; ++i) found = found || (pcs[i] >= fn && pcs[i] < fn + 256);
  EXPECT_TRUE(found) << "capture_here not on its own stack";
  // Linked statically into this test, the recorder's "own" code is the whole
  // test executable: skipping own frames leaves only frames outside it.
  uint32_t skipped_depth = capture_here(pcs, true);
  ASSERT_GT(skipped_depth, 0u);
  for (uint32_t i = 0; i < skipped_depth; ++i) EXPECT_FALSE(pcs[i] >= fn && pcs[i] < fn + 256);
}

}  // namespace
}  // namespace syncscope::preload
