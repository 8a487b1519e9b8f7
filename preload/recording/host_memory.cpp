#include "preload/recording/host_memory.h"

#include <cuda_runtime_api.h>

#include <atomic>

#include "preload/recording/pinned_map.h"
#include "preload/core/real_function.h"

namespace syncscope::preload {

MemoryKind classify_pointer(const void* ptr, bool allow_query) {
  if (pinned_map().find(reinterpret_cast<uint64_t>(ptr)) == PinnedMap::Lookup::kPinned) {
    return MemoryKind::kHostPinned;
  }
  if (!allow_query) return MemoryKind::kUnknown;
  using Fn = cudaError_t (*)(cudaPointerAttributes*, const void*);
  static std::atomic<void*> slot{nullptr};
  auto query = reinterpret_cast<Fn>(real_function(slot, RealLibrary::kCudaRuntime, "cudaPointerGetAttributes"));
  if (query == nullptr) return MemoryKind::kUnknown;
  cudaPointerAttributes attributes{};
  if (query(&attributes, ptr) != cudaSuccess) {
    // Our query must not leave an error behind for the target's next
    // cudaGetLastError() check.
    using ClearFn = cudaError_t (*)();
    static std::atomic<void*> clear_slot{nullptr};
    auto clear = reinterpret_cast<ClearFn>(real_function(clear_slot, RealLibrary::kCudaRuntime, "cudaGetLastError"));
    if (clear != nullptr) clear();
    return MemoryKind::kUnknown;
  }
  switch (attributes.type) {
    case cudaMemoryTypeUnregistered:
      return MemoryKind::kHostPageable;
    case cudaMemoryTypeHost:
      return MemoryKind::kHostPinned;
    case cudaMemoryTypeDevice:
      return MemoryKind::kDevice;
    case cudaMemoryTypeManaged:
      return MemoryKind::kManaged;
  }
  return MemoryKind::kUnknown;
}

HostMem host_mem_of(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kHostPageable:
      return HostMem::kPageable;
    case MemoryKind::kHostPinned:
      return HostMem::kPinned;
    case MemoryKind::kManaged:
      return HostMem::kManaged;
    case MemoryKind::kDevice:
      return HostMem::kNone;
    case MemoryKind::kUnknown:
      return HostMem::kUnknown;
  }
  return HostMem::kUnknown;
}

}  // namespace syncscope::preload
