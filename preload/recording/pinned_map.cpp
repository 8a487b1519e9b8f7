#include "preload/recording/pinned_map.h"

#include <sys/mman.h>

#include <atomic>

namespace syncscope::preload {
namespace {

std::atomic<uint64_t> g_sequence{0};  // odd while a writer is inside
std::atomic<uint32_t> g_count{0};
std::atomic_flag g_writer_lock = ATOMIC_FLAG_INIT;

struct WriterLock {
  WriterLock() {
    while (g_writer_lock.test_and_set(std::memory_order_acquire)) {
    }
    g_sequence.fetch_add(1, std::memory_order_acq_rel);
  }
  ~WriterLock() {
    g_sequence.fetch_add(1, std::memory_order_release);
    g_writer_lock.clear(std::memory_order_release);
  }
};

}  // namespace

bool PinnedMap::init() {
  void* p = mmap(nullptr, sizeof(Range) * kCapacity, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  ranges_ = static_cast<Range*>(p);
  return true;
}

void PinnedMap::add(uint64_t base, uint64_t size) {
  if (ranges_ == nullptr || size == 0) return;
  WriterLock lock;
  uint32_t n = g_count.load(std::memory_order_relaxed);
  if (n == kCapacity) return;
  uint32_t pos = n;
  while (pos > 0 && ranges_[pos - 1].begin > base) {
    std::atomic_ref<uint64_t>(ranges_[pos].begin).store(ranges_[pos - 1].begin, std::memory_order_relaxed);
    std::atomic_ref<uint64_t>(ranges_[pos].end).store(ranges_[pos - 1].end, std::memory_order_relaxed);
    --pos;
  }
  std::atomic_ref<uint64_t>(ranges_[pos].begin).store(base, std::memory_order_relaxed);
  std::atomic_ref<uint64_t>(ranges_[pos].end).store(base + size, std::memory_order_relaxed);
  g_count.store(n + 1, std::memory_order_relaxed);
}

void PinnedMap::remove(uint64_t base) {
  if (ranges_ == nullptr) return;
  WriterLock lock;
  uint32_t n = g_count.load(std::memory_order_relaxed);
  uint32_t i = 0;
  while (i < n && ranges_[i].begin != base) ++i;
  if (i == n) return;
  for (; i + 1 < n; ++i) {
    std::atomic_ref<uint64_t>(ranges_[i].begin).store(ranges_[i + 1].begin, std::memory_order_relaxed);
    std::atomic_ref<uint64_t>(ranges_[i].end).store(ranges_[i + 1].end, std::memory_order_relaxed);
  }
  g_count.store(n - 1, std::memory_order_relaxed);
}

PinnedMap::Lookup PinnedMap::find(uint64_t ptr) const {
  if (ranges_ == nullptr) return Lookup::kMiss;
  for (int attempt = 0; attempt < 8; ++attempt) {
    uint64_t before = g_sequence.load(std::memory_order_acquire);
    if (before & 1) continue;
    uint32_t n = g_count.load(std::memory_order_relaxed);
    if (n > kCapacity) n = kCapacity;
    // Last range whose begin <= ptr.
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
      uint32_t mid = (lo + hi) / 2;
      if (std::atomic_ref<uint64_t>(ranges_[mid].begin).load(std::memory_order_relaxed) <= ptr)
        lo = mid + 1;
      else
        hi = mid;
    }
    bool hit = lo > 0 && ptr < std::atomic_ref<uint64_t>(ranges_[lo - 1].end).load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (g_sequence.load(std::memory_order_relaxed) == before) return hit ? Lookup::kPinned : Lookup::kMiss;
  }
  return Lookup::kBusy;
}

uint32_t PinnedMap::size() const { return g_count.load(std::memory_order_relaxed); }

PinnedMap& pinned_map() {
  static PinnedMap map;
  return map;
}

}  // namespace syncscope::preload
