// Simulated memory for the fake CUDA runtime: "device" and managed memory are
// ordinary host memory, tracked by range so pointer queries and copies can
// tell device, pinned and pageable memory apart.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fakecuda {

enum class MemKind { kPageable, kDevice, kPinned, kRegistered, kManaged };

void* allocate(size_t size, MemKind kind);
// Frees an allocation of that kind; false if ptr is not one.
bool release(void* ptr, MemKind kind);
bool register_range(void* ptr, size_t size);
bool unregister_range(void* ptr);
// Kind of the memory at ptr (kPageable when untracked).
MemKind kind_of(const void* ptr);
// Pinned for the purpose of copies: allocated or registered page-locked.
inline bool is_pinned(MemKind k) { return k == MemKind::kPinned || k == MemKind::kRegistered; }
void reset_memory_after_fork();

}  // namespace fakecuda
