// GPU activity as the trace stores it (issue 13, docs/gpu-timeline.md): one
// 64-byte GpuRecord per kernel, copy, memset or synchronisation the GPU
// reported through CUPTI, and per API record (the runtime or driver call
// that launched or waited for it, with its thread). Times are on the trace
// clock (CLOCK_MONOTONIC ns), like events'. Written in kGpuActivity records;
// kernel names are kString records. Shared by the recorder and the reader.
#pragma once

#include <cstdint>
#include <iterator>
#include <string_view>

namespace syncscope {

enum class GpuKind : uint8_t {
  kUnknown = 0,
  kKernel = 1,      // a kernel ran (graph nodes included)
  kMemcpy = 2,      // a copy ran
  kMemset = 3,      // a memset ran
  kSync = 4,        // a host synchronisation waited (CUPTI's own measure)
  kRuntimeApi = 5,  // a runtime API call that made or waited for GPU work
  kDriverApi = 6,   // the same for a driver API call
  kWindow = 7,      // a sampling window: GPU work was recorded for calls issued in [start_ns, end_ns)
};

// CUpti_ActivityMemoryKind, as CUPTI numbers it (stored as is).
enum class GpuMemoryKind : uint8_t {
  kUnknown = 0,
  kPageable = 1,
  kPinned = 2,
  kDevice = 3,
  kArray = 4,
  kManaged = 5,
  kDeviceStatic = 6,
  kManagedStatic = 7,
};

// CUpti_ActivityMemcpyKind, as CUPTI numbers it (stored as is).
enum class GpuCopyKind : uint8_t {
  kUnknown = 0,
  kHtoD = 1,
  kDtoH = 2,
  kHtoA = 3,
  kAtoH = 4,
  kAtoA = 5,
  kAtoD = 6,
  kDtoA = 7,
  kDtoD = 8,
  kHtoH = 9,
  kPtoP = 10,
};

enum GpuRecordFlags : uint8_t {
  kGpuFlagAsync = 1u << 0,  // memcpy/memset: CUPTI flagged it asynchronous
};

struct GpuRecord {
  uint64_t start_ns;  // trace clock
  uint64_t end_ns;
  uint64_t bytes;           // memcpy / memset bytes; 0 otherwise
  uint32_t correlation_id;  // CUPTI's: equal in a GPU record and the API record of its call
  uint32_t stream_id;       // CUPTI's stream id (not a cudaStream_t); 0 for API records
  uint32_t name_id;         // kKernel: kString id of its name; API: CUPTI callback id; kSync: sync type
  uint32_t tid;             // API records: the calling thread's kernel tid; 0 otherwise
  uint32_t context_id;
  uint32_t graph_id;  // a graph's node: its graph's id; 0 otherwise
  uint8_t kind;       // GpuKind
  uint8_t copy_kind;  // kMemcpy: GpuCopyKind
  uint8_t src_kind;   // kMemcpy: GpuMemoryKind of the source; kMemset: of the memory set
  uint8_t dst_kind;   // kMemcpy: GpuMemoryKind of the destination
  int8_t device;      // device ordinal, -1 unknown
  uint8_t flags;      // GpuRecordFlags
  uint16_t reserved0;
  uint32_t result;  // API records: the call's return value
  uint32_t reserved1;
};
static_assert(sizeof(GpuRecord) == 64);

inline bool gpu_kind_is_api(uint8_t kind) {
  return kind == static_cast<uint8_t>(GpuKind::kRuntimeApi) || kind == static_cast<uint8_t>(GpuKind::kDriverApi);
}

// Work the GPU did (kernel, copy, memset), as opposed to a host wait or an API record.
inline bool gpu_kind_is_work(uint8_t kind) {
  return kind == static_cast<uint8_t>(GpuKind::kKernel) || kind == static_cast<uint8_t>(GpuKind::kMemcpy) ||
         kind == static_cast<uint8_t>(GpuKind::kMemset);
}

inline std::string_view gpu_kind_name(uint8_t kind) {
  switch (static_cast<GpuKind>(kind)) {
    case GpuKind::kKernel:
      return "kernel";
    case GpuKind::kMemcpy:
      return "memcpy";
    case GpuKind::kMemset:
      return "memset";
    case GpuKind::kSync:
      return "sync";
    case GpuKind::kRuntimeApi:
      return "runtime-api";
    case GpuKind::kDriverApi:
      return "driver-api";
    case GpuKind::kWindow:
      return "window";
    case GpuKind::kUnknown:
      break;
  }
  return "unknown";
}

inline std::string_view gpu_memory_kind_name(uint8_t kind) {
  switch (static_cast<GpuMemoryKind>(kind)) {
    case GpuMemoryKind::kPageable:
      return "pageable";
    case GpuMemoryKind::kPinned:
      return "pinned";
    case GpuMemoryKind::kDevice:
      return "device";
    case GpuMemoryKind::kArray:
      return "array";
    case GpuMemoryKind::kManaged:
      return "managed";
    case GpuMemoryKind::kDeviceStatic:
      return "device-static";
    case GpuMemoryKind::kManagedStatic:
      return "managed-static";
    case GpuMemoryKind::kUnknown:
      break;
  }
  return "unknown";
}

// "HtoD", "DtoH", ...; "?" for kUnknown and numbers this build does not know.
inline std::string_view gpu_copy_kind_name(uint8_t kind) {
  static constexpr std::string_view kNames[] = {"?",    "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                                "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  return kind < std::size(kNames) ? kNames[kind] : "?";
}

}  // namespace syncscope
