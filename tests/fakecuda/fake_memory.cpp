#include "fake_memory.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

namespace fakecuda {
namespace {

struct Range {
  size_t size;
  MemKind kind;
};

std::mutex g_mutex;
std::map<uintptr_t, Range>* g_ranges = new std::map<uintptr_t, Range>();

}  // namespace

void* allocate(size_t size, MemKind kind) {
  void* p = std::aligned_alloc(256, ((size ? size : 1) + 255) & ~size_t{255});
  if (p == nullptr) return nullptr;
  std::memset(p, 0, size);
  std::lock_guard<std::mutex> lock(g_mutex);
  (*g_ranges)[reinterpret_cast<uintptr_t>(p)] = Range{size ? size : 1, kind};
  return p;
}

bool release(void* ptr, MemKind kind) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_ranges->find(reinterpret_cast<uintptr_t>(ptr));
  if (it == g_ranges->end() || it->second.kind != kind) return false;
  g_ranges->erase(it);
  std::free(ptr);
  return true;
}

bool register_range(void* ptr, size_t size) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto key = reinterpret_cast<uintptr_t>(ptr);
  if (g_ranges->count(key)) return false;
  (*g_ranges)[key] = Range{size, MemKind::kRegistered};
  return true;
}

bool unregister_range(void* ptr) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_ranges->find(reinterpret_cast<uintptr_t>(ptr));
  if (it == g_ranges->end() || it->second.kind != MemKind::kRegistered) return false;
  g_ranges->erase(it);
  return true;
}

MemKind kind_of(const void* ptr) {
  auto p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_ranges->upper_bound(p);
  if (it == g_ranges->begin()) return MemKind::kPageable;
  --it;
  return p < it->first + it->second.size ? it->second.kind : MemKind::kPageable;
}

void reset_memory_after_fork() { new (&g_mutex) std::mutex(); }

}  // namespace fakecuda
