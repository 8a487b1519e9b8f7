// ApiId and ApiFamily: the identities of intercepted CUDA entry points, as
// stored in the trace. Generated from cuda_api_table.def so that the recorder,
// the trace reader and the detectors can never disagree on a number.
#pragma once

#include <cstdint>
#include <string_view>

namespace syncscope {

// What kind of work an entry point does. Stored as part of ApiId's meaning,
// never in the trace itself, so families may be refined without a format bump.
enum class ApiFamily : uint8_t {
  kSync,            // host blocks until device work completes
  kQuery,           // non-blocking poll of a stream or event
  kStreamWait,      // device-side wait of one stream on an event
  kEventRecord,     // marks a point in a stream
  kCopy,            // memory copy (any direction)
  kMemset,          // device memset
  kAlloc,           // device or managed allocation
  kFree,            // device or managed free
  kHostAlloc,       // pinned host allocation
  kHostFree,        // pinned host free
  kHostRegister,    // pin existing host memory
  kHostUnregister,  // unpin host memory
  kLaunch,          // kernel launch
  kGraphLaunch,     // CUDA graph replay
  kHostFunc,        // host callback enqueued on a stream
  kStreamCreate,
  kStreamDestroy,
  kCaptureBegin,  // stream capture into a CUDA graph starts
  kCaptureEnd,
  kVmmMap,    // driver virtual memory: create, reserve, map, set access
  kVmmUnmap,  // driver virtual memory: unmap, release, free address range
  kMarker,    // syncscope's own events (optimizer steps, GIL waits): no CUDA work
};

enum class ApiId : uint16_t {
  kUnknown = 0,
#define SS_API(name, family, ...) name,
#define SS_DRIVER_API SS_API
#define SS_MARKER SS_API
#include "trace/cuda_api_table.def"
#undef SS_MARKER
#undef SS_DRIVER_API
#undef SS_API
  kCount,
};

inline constexpr uint16_t kApiCount = static_cast<uint16_t>(ApiId::kCount);

// Name of an API as the user knows it; "unknown" for ids this build does not know
// (a newer recorder than reader).
std::string_view api_name(uint16_t api);
// Family of an API; kQuery for unknown ids (the least alarming choice).
ApiFamily api_family(uint16_t api);
std::string_view family_name(ApiFamily family);
// True for driver API entry points (libcuda: cu*), false for the runtime's.
bool api_is_driver(uint16_t api);
// True for the calls that put work on the GPU: launches, graph launches,
// copies and memsets (what the GPU timeline's kernel, memcpy and memset
// records come from).
bool api_issues_gpu_work(uint16_t api);

// Short names of a copy's direction ("H2D"; "" for none, "?" when unknown)
// and of its host memory ("pageable"; "" for none) as reports print them.
std::string_view direction_name(uint8_t direction);
std::string_view host_mem_name(uint8_t host_mem);

}  // namespace syncscope
