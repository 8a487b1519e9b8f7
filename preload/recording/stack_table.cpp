#include "preload/recording/stack_table.h"

#include <sys/mman.h>

#include <atomic>
#include <cstring>

#include "trace/format.h"

namespace syncscope::preload {

struct StackTable::Slot {
  std::atomic<uint64_t> hash;   // 0 = empty; claimed by CAS
  std::atomic<uint32_t> depth;  // written before `ready`
  std::atomic<uint32_t> python_depth;
  std::atomic<uint32_t> ready;  // 1 once pcs are stored
};

namespace {

std::atomic<uint32_t> g_published{0};
std::atomic<uint64_t> g_dropped{0};

uint64_t mix(uint64_t h, const uint64_t* values, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    h ^= values[i];
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
  }
  return h;
}

uint64_t hash_stack(const uint64_t* pcs, uint32_t depth, const uint64_t* python, uint32_t python_depth) {
  uint64_t h = mix(0x9e3779b97f4a7c15ull ^ depth, pcs, depth);
  h = mix(h ^ (uint64_t{python_depth} << 40), python, python_depth);
  return h == 0 ? 1 : h;  // 0 marks an empty slot
}

void* map_zeroed(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

}  // namespace

bool StackTable::init() {
  slots_ = static_cast<Slot*>(map_zeroed(sizeof(Slot) * kCapacity));
  pcs_ = static_cast<uint64_t*>(map_zeroed(sizeof(uint64_t) * kMaxStackDepth * kCapacity));
  python_ = static_cast<uint64_t*>(map_zeroed(sizeof(uint64_t) * kMaxPythonDepth * kCapacity));
  order_ = static_cast<uint32_t*>(map_zeroed(sizeof(uint32_t) * kCapacity));
  return slots_ != nullptr && pcs_ != nullptr && python_ != nullptr && order_ != nullptr;
}

uint32_t StackTable::intern(const uint64_t* pcs, uint32_t depth, const uint64_t* python, uint32_t python_depth) {
  if (slots_ == nullptr || (depth == 0 && python_depth == 0)) return 0;
  if (depth > kMaxStackDepth) depth = kMaxStackDepth;
  if (python_depth > kMaxPythonDepth) python_depth = kMaxPythonDepth;
  const uint64_t h = hash_stack(pcs, depth, python, python_depth);
  // A 64-bit hash over the PCs identifies the stack: the chance of two
  // different stacks colliding in one process is negligible (< 2^-32).
  constexpr uint32_t kMaxProbes = 256;
  uint32_t index = static_cast<uint32_t>(h) & (kCapacity - 1);
  for (uint32_t probe = 0; probe < kMaxProbes; ++probe, index = (index + 1) & (kCapacity - 1)) {
    Slot& slot = slots_[index];
    uint64_t seen = slot.hash.load(std::memory_order_acquire);
    if (seen == h) return index + 1;
    if (seen != 0) continue;
    if (!slot.hash.compare_exchange_strong(seen, h, std::memory_order_acq_rel)) {
      if (seen == h) return index + 1;  // another thread interned the same stack
      continue;
    }
    std::memcpy(pcs_ + size_t{index} * kMaxStackDepth, pcs, depth * sizeof(uint64_t));
    if (python_depth > 0) {
      std::memcpy(python_ + size_t{index} * kMaxPythonDepth, python, python_depth * sizeof(uint64_t));
    }
    slot.depth.store(depth, std::memory_order_relaxed);
    slot.python_depth.store(python_depth, std::memory_order_relaxed);
    slot.ready.store(1, std::memory_order_release);
    uint32_t position = g_published.fetch_add(1, std::memory_order_acq_rel);
    std::atomic_ref<uint32_t>(order_[position]).store(index + 1, std::memory_order_release);
    return index + 1;
  }
  g_dropped.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

bool StackTable::next_published(uint32_t* cursor, Published* out) const {
  if (order_ == nullptr || *cursor >= kCapacity) return false;
  if (*cursor >= g_published.load(std::memory_order_acquire)) return false;
  uint32_t entry = std::atomic_ref<uint32_t>(order_[*cursor]).load(std::memory_order_acquire);
  if (entry == 0) return false;  // reserved but not yet stored: next drain
  const Slot& slot = slots_[entry - 1];
  if (slot.ready.load(std::memory_order_acquire) == 0) return false;
  out->id = entry;
  out->pcs = pcs_ + size_t{entry - 1} * kMaxStackDepth;
  out->depth = slot.depth.load(std::memory_order_relaxed);
  out->python = python_ + size_t{entry - 1} * kMaxPythonDepth;
  out->python_depth = slot.python_depth.load(std::memory_order_relaxed);
  ++*cursor;
  return true;
}

bool StackTable::native_frames(uint32_t id, const uint64_t** pcs, uint32_t* depth) const {
  if (slots_ == nullptr || id == 0 || id > kCapacity) return false;
  const Slot& slot = slots_[id - 1];
  if (slot.ready.load(std::memory_order_acquire) == 0) return false;
  *pcs = pcs_ + size_t{id - 1} * kMaxStackDepth;
  *depth = slot.depth.load(std::memory_order_relaxed);
  return true;
}

uint64_t StackTable::dropped() const { return g_dropped.load(std::memory_order_relaxed); }

StackTable& stack_table() {
  static StackTable table;
  return table;
}

}  // namespace syncscope::preload
