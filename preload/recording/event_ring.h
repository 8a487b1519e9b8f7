// A bounded single-producer / single-consumer ring of Events: one per thread
// that makes CUDA calls (the producer), drained by the collector thread (the
// consumer). The producer never waits: when the ring is full the event is
// dropped and counted, so a slow disk can never slow the training job.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "trace/event.h"

namespace syncscope::preload {

class EventRing {
 public:
  // `storage` must hold `capacity` Events; capacity is a power of two.
  EventRing(Event* storage, uint32_t capacity) : slots_(storage), mask_(capacity - 1) {}

  // Producer side: the thread that owns the ring. Wait-free, no allocation.
  bool push(const Event& event) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_cache_ > mask_) {
      tail_cache_ = tail_.load(std::memory_order_acquire);
      if (head - tail_cache_ > mask_) {
        // Only the producer writes `dropped_`; relaxed is enough for the collector's read.
        dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        return false;
      }
    }
    slots_[head & mask_] = event;
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  // Producer side: pushes only if `keep_free` slots stay free after it, and
  // counts nothing as dropped when it declines: for events the recorder can
  // do without (Python line events), which must never take a CUDA call's
  // room.
  bool push_if_room(const Event& event, uint64_t keep_free) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head + 1 + keep_free - tail_cache_ > mask_ + 1) {
      tail_cache_ = tail_.load(std::memory_order_acquire);
      if (head + 1 + keep_free - tail_cache_ > mask_ + 1) return false;
    }
    slots_[head & mask_] = event;
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  // Consumer side: copies up to `max` events into `out`, oldest first.
  size_t pop(Event* out, size_t max) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    const uint64_t head = head_.load(std::memory_order_acquire);
    size_t n = static_cast<size_t>(head - tail);
    if (n > max) n = max;
    for (size_t i = 0; i < n; ++i) out[i] = slots_[(tail + i) & mask_];
    tail_.store(tail + n, std::memory_order_release);
    return n;
  }

  // Consumer side: events pushed and not yet popped.
  uint64_t unread() const {
    return head_.load(std::memory_order_acquire) - tail_.load(std::memory_order_relaxed);
  }

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  uint64_t pushed() const { return head_.load(std::memory_order_acquire); }
  uint32_t capacity() const { return static_cast<uint32_t>(mask_ + 1); }

 private:
  // Producer and consumer indices on separate cache lines: no false sharing
  // between the training thread and the collector.
  alignas(64) std::atomic<uint64_t> head_{0};
  uint64_t tail_cache_ = 0;  // producer's last view of tail_
  std::atomic<uint64_t> dropped_{0};
  alignas(64) std::atomic<uint64_t> tail_{0};
  alignas(64) Event* slots_;
  uint64_t mask_;
};

}  // namespace syncscope::preload
