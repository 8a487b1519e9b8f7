// Simulated memory for the fake CUDA runtime: "device" and managed memory are
// ordinary host memory, tracked by range so pointer queries and copies can
// tell device, pinned and pageable memory apart.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fakecuda {

enum class MemKind { kPageable, kDevice, kPinned, kRegistered, kManaged };

void* allocate(size_t size, MemKind kind);
// Frees an allocation of that kind; false if ptr is not the start of one.
bool release(void* ptr, MemKind kind);
bool is_allocation(const void* ptr, MemKind kind);
// false if [ptr, ptr + size) overlaps memory already tracked.
bool register_range(void* ptr, size_t size);
bool unregister_range(void* ptr);
// Kind of the memory at ptr (kPageable when untracked).
MemKind kind_of(const void* ptr);
// Whether [ptr, ptr + size) lies inside one tracked range (device, managed,
// pinned or registered): memory the device can address.
bool device_accessible(const void* ptr, size_t size);
// Pinned for the purpose of copies: allocated or registered page-locked.
inline bool is_pinned(MemKind k) { return k == MemKind::kPinned || k == MemKind::kRegistered; }
void reset_memory_after_fork();

}  // namespace fakecuda
