#include "preload/recording/event_ring.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace syncscope::preload {
namespace {

TEST(EventRing, PushPopInOrder) {
  std::vector<Event> storage(8);
  EventRing ring(storage.data(), 8);
  for (uint64_t i = 0; i < 5; ++i) {
    Event e{};
    e.bytes = i;
    ASSERT_TRUE(ring.push(e));
  }
  Event out[8];
  ASSERT_EQ(ring.pop(out, 8), 5u);
  for (uint64_t i = 0; i < 5; ++i) EXPECT_EQ(out[i].bytes, i);
  EXPECT_EQ(ring.pop(out, 8), 0u);
}

TEST(EventRing, FullRingDropsAndCounts) {
  std::vector<Event> storage(4);
  EventRing ring(storage.data(), 4);
  Event e{};
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(ring.push(e));
  EXPECT_FALSE(ring.push(e));
  EXPECT_FALSE(ring.push(e));
  EXPECT_EQ(ring.dropped(), 2u);
  Event out[4];
  EXPECT_EQ(ring.pop(out, 1), 1u);
  EXPECT_TRUE(ring.push(e));  // room again after the consumer advanced
  EXPECT_EQ(ring.dropped(), 2u);
}

TEST(EventRing, PushIfRoomLeavesTheRestFreeAndCountsNoDrop) {
  std::vector<Event> storage(8);
  EventRing ring(storage.data(), 8);
  Event e{};
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(ring.push_if_room(e, 4)) << i;
  EXPECT_FALSE(ring.push_if_room(e, 4)) << "four slots must stay free";
  EXPECT_EQ(ring.dropped(), 0u) << "declining is not losing";
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(ring.push(e)) << "the free half is still there for others";
  EXPECT_FALSE(ring.push(e));
  Event out[8];
  EXPECT_EQ(ring.pop(out, 5), 5u);
  EXPECT_TRUE(ring.push_if_room(e, 4));
  EXPECT_FALSE(ring.push_if_room(e, 4));
}

// Many producers, each with its own ring, one consumer draining them all
// concurrently: every event is either consumed exactly once, in order, or
// counted as dropped.
TEST(EventRing, StressManyProducersExactAccounting) {
  constexpr int kProducers = 8;
  constexpr uint64_t kPerProducer = 200000;
  constexpr uint32_t kCapacity = 256;  // small, so drops really happen
  std::vector<std::vector<Event>> storage(kProducers, std::vector<Event>(kCapacity));
  std::vector<std::unique_ptr<EventRing>> rings;
  for (int p = 0; p < kProducers; ++p) rings.push_back(std::make_unique<EventRing>(storage[p].data(), kCapacity));

  std::atomic<int> running{kProducers};
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (uint64_t i = 0; i < kPerProducer; ++i) {
        Event e{};
        e.tid = static_cast<uint32_t>(p);
        e.bytes = i;
        e.start_ns = ~i;  // a second field to catch torn copies
        rings[p]->push(e);
      }
      running.fetch_sub(1);
    });
  }

  std::vector<uint64_t> consumed(kProducers, 0);
  std::vector<int64_t> last(kProducers, -1);
  bool in_order = true, intact = true;
  Event buffer[64];
  auto drain_once = [&] {
    for (int p = 0; p < kProducers; ++p) {
      size_t n;
      while ((n = rings[p]->pop(buffer, 64)) > 0) {
        for (size_t i = 0; i < n; ++i) {
          const Event& e = buffer[i];
          intact = intact && e.tid == static_cast<uint32_t>(p) && e.start_ns == ~e.bytes;
          in_order = in_order && static_cast<int64_t>(e.bytes) > last[p];
          last[p] = static_cast<int64_t>(e.bytes);
        }
        consumed[p] += n;
      }
    }
  };
  while (running.load() > 0) drain_once();
  for (auto& t : producers) t.join();
  drain_once();

  uint64_t total_consumed = 0, total_dropped = 0;
  for (int p = 0; p < kProducers; ++p) {
    EXPECT_EQ(consumed[p] + rings[p]->dropped(), kPerProducer) << "producer " << p;
    total_consumed += consumed[p];
    total_dropped += rings[p]->dropped();
  }
  EXPECT_TRUE(in_order);
  EXPECT_TRUE(intact);
  EXPECT_EQ(total_consumed + total_dropped, kProducers * kPerProducer);
  EXPECT_GT(total_consumed, 0u);
}

}  // namespace
}  // namespace syncscope::preload
