#include "fake_memory.h"

#include <cstdlib>
#include <map>
#include <mutex>

namespace fakecuda {
namespace {

struct Range {
  size_t size;
  MemKind kind;
};

// Never destroyed: workers may free memory (cudaFreeAsync) during exit.
std::mutex* g_mutex = new std::mutex();
std::map<uintptr_t, Range>* g_ranges = new std::map<uintptr_t, Range>();

// The range containing p, or end().
std::map<uintptr_t, Range>::iterator find_range(uintptr_t p) {
  auto it = g_ranges->upper_bound(p);
  if (it == g_ranges->begin()) return g_ranges->end();
  --it;
  return p - it->first < it->second.size ? it : g_ranges->end();
}

}  // namespace

void* allocate(size_t size, MemKind kind) {
  if (size > (size_t{1} << 40)) return nullptr;  // more than any GPU has
  size_t rounded = ((size ? size : 1) + 255) & ~size_t{255};
  // Not zeroed (nor is real device memory), so large buffers cost no page faults.
  void* p = std::aligned_alloc(256, rounded);
  if (p == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(*g_mutex);
  (*g_ranges)[reinterpret_cast<uintptr_t>(p)] = Range{size ? size : 1, kind};
  return p;
}

bool release(void* ptr, MemKind kind) {
  {
    std::lock_guard<std::mutex> lock(*g_mutex);
    auto it = g_ranges->find(reinterpret_cast<uintptr_t>(ptr));
    if (it == g_ranges->end() || it->second.kind != kind) return false;
    g_ranges->erase(it);
  }
  std::free(ptr);
  return true;
}

bool is_allocation(const void* ptr, MemKind kind) {
  std::lock_guard<std::mutex> lock(*g_mutex);
  auto it = g_ranges->find(reinterpret_cast<uintptr_t>(ptr));
  return it != g_ranges->end() && it->second.kind == kind;
}

bool register_range(void* ptr, size_t size) {
  auto start = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(*g_mutex);
  auto next = g_ranges->lower_bound(start);
  if (next != g_ranges->end() && next->first - start < size) return false;
  if (find_range(start) != g_ranges->end()) return false;
  (*g_ranges)[start] = Range{size, MemKind::kRegistered};
  return true;
}

bool unregister_range(void* ptr) {
  std::lock_guard<std::mutex> lock(*g_mutex);
  auto it = g_ranges->find(reinterpret_cast<uintptr_t>(ptr));
  if (it == g_ranges->end() || it->second.kind != MemKind::kRegistered) return false;
  g_ranges->erase(it);
  return true;
}

MemKind kind_of(const void* ptr) {
  std::lock_guard<std::mutex> lock(*g_mutex);
  auto it = find_range(reinterpret_cast<uintptr_t>(ptr));
  return it == g_ranges->end() ? MemKind::kPageable : it->second.kind;
}

bool device_accessible(const void* ptr, size_t size) {
  auto p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(*g_mutex);
  auto it = find_range(p);
  return it != g_ranges->end() && size <= it->second.size - (p - it->first);
}

void reset_memory_after_fork() {
  // The child keeps copies of all memory; only the lock may have been held by
  // a thread that does not exist there.
  g_mutex = new std::mutex();
}

}  // namespace fakecuda
