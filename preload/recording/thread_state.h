// Per-thread recorder state: the thread's ring, its cached kernel tid, and the
// registry through which the collector finds every ring. Threads register on
// their first recorded call; an exited thread's ring is drained one last time
// and then freed by the collector.
#pragma once

#include <atomic>
#include <cstdint>

#include "preload/recording/event_ring.h"
#include "preload/core/in_hook.h"
#include "trace/format.h"

namespace syncscope::preload {

struct ThreadState {
  // Events whose Python frames are owed: made while the thread had released
  // the GIL (PyTorch releases it around its C++ work), completed when the
  // thread takes the GIL back (preload/python/python_resume.cpp). Each carries its
  // native-only stack id, whose PCs the stack table keeps, so an entry is
  // one Event: one release can hold many calls (empty_cache() with
  // expandable segments unmaps and releases every segment, with syncs).
  static constexpr uint32_t kMaxPending = 256;

  EventRing ring;
  uint32_t tid = 0;
  std::atomic<bool> exited{false};
  ThreadState* next = nullptr;  // registry link; written before publication, then by the collector
  size_t mapping_bytes = 0;     // size of the mmap holding this struct and its ring storage
  // Owner-only: events waiting for their Python frames.
  uint32_t pending_count = 0;
  Event pending[kMaxPending];
  // What the recorder cost this thread beyond the hooks' fixed path:
  // ticks spent capturing stacks and Python frames, and how many were taken.
  // Written by the owner only (plain add), read by the collector at the end.
  std::atomic<uint64_t> capture_ticks{0};
  std::atomic<uint64_t> captures{0};
  void add_capture(uint64_t ticks) {
    capture_ticks.store(capture_ticks.load(std::memory_order_relaxed) + ticks, std::memory_order_relaxed);
    captures.store(captures.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  // Collector-owned bookkeeping.
  uint64_t drops_reported = 0;
  uint64_t drops_baseline = 0;  // ring.dropped() when the current session began
  bool name_written = false;

  explicit ThreadState(Event* storage, uint32_t capacity) : ring(storage, capacity) {}
};

// Thread-local fast state. initial-exec TLS: one instruction to reach it.
extern __thread ThreadState* tls_state __attribute__((tls_model("initial-exec")));
extern __thread bool tls_thread_exited __attribute__((tls_model("initial-exec")));

// Creates and registers this thread's state (first recorded call only).
// Returns nullptr when memory cannot be had or the thread is exiting.
ThreadState* create_thread_state();

inline ThreadState* current_thread_state() {
  ThreadState* state = tls_state;
  if (__builtin_expect(state != nullptr, 1)) return state;
  if (tls_thread_exited) return nullptr;
  return create_thread_state();
}

// Pushes every pending event with its native stack only (owner thread).
void flush_pending_native(ThreadState* state);

// The registry, for the collector.
ThreadState* registry_head();
// Unlinks `node` whose predecessor is `prev` (never the head) and frees it.
void registry_remove_after(ThreadState* prev, ThreadState* node);
// After fork: the child has one thread; forget every ring of the parent's
// (their memory is the parent's copy, so it is simply abandoned).
void registry_reset_in_child();

}  // namespace syncscope::preload
