#include "preload/recording/thread_state.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <new>

#include "preload/recording/collector.h"
#include "preload/core/config.h"
#include "preload/recording/stack_table.h"

namespace syncscope::preload {

__thread ThreadState* tls_state = nullptr;
__thread bool tls_in_hook = false;  // core/in_hook.h
__thread bool tls_thread_exited = false;

namespace {

std::atomic<ThreadState*> g_registry{nullptr};

// Marks the thread's ring as finished when the thread exits, so the collector
// can drain and free it. Later CUDA calls from TLS destructors pass through.
struct ThreadExitMarker {
  ~ThreadExitMarker() {
    if (tls_state != nullptr) {
      flush_pending_native(tls_state);
      tls_state->exited.store(true, std::memory_order_release);
    }
    tls_state = nullptr;
    tls_thread_exited = true;
  }
};

void register_exit_marker() {
  static thread_local ThreadExitMarker marker;
  (void)marker;
}

}  // namespace

ThreadState* create_thread_state() {
  const uint32_t capacity = config().ring_events;
  const size_t bytes = ((sizeof(ThreadState) + 63) & ~size_t{63}) + size_t{capacity} * sizeof(Event);
  // mmap, not malloc: the hook may run inside code that holds malloc's locks
  // or has replaced malloc, and pages are only committed as the ring fills.
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  auto* storage = reinterpret_cast<Event*>(static_cast<char*>(memory) + ((sizeof(ThreadState) + 63) & ~size_t{63}));
  auto* state = new (memory) ThreadState(storage, capacity);
  state->tid = static_cast<uint32_t>(syscall(SYS_gettid));
  state->mapping_bytes = bytes;
  ThreadState* head = g_registry.load(std::memory_order_relaxed);
  do {
    state->next = head;
  } while (!g_registry.compare_exchange_weak(head, state, std::memory_order_release, std::memory_order_relaxed));
  tls_state = state;
  register_exit_marker();
  ensure_collector_running();
  return state;
}

void flush_pending_native(ThreadState* state) {
  for (uint32_t i = 0; i < state->pending_count; ++i) state->ring.push(state->pending[i]);
  state->pending_count = 0;
}

ThreadState* registry_head() { return g_registry.load(std::memory_order_acquire); }

void registry_remove_after(ThreadState* prev, ThreadState* node) {
  // Producers only ever replace the head, so a node behind the head is the
  // collector's alone to unlink.
  prev->next = node->next;
  size_t bytes = node->mapping_bytes;
  node->~ThreadState();
  munmap(node, bytes);
}

void registry_reset_in_child() {
  g_registry.store(nullptr, std::memory_order_relaxed);
  tls_state = nullptr;
}

}  // namespace syncscope::preload
