// The fixed-size record of one intercepted CUDA call: the unit that flows from
// the hooks through the per-thread rings into the trace and on to the detectors.
// Its layout is part of the trace format (docs/trace-format.md): change it only
// together with kTraceVersion.
#pragma once

#include <cstdint>
#include <type_traits>

namespace syncscope {

// Direction of a copy, from cudaMemcpyKind resolved against pointer attributes.
enum class Direction : uint8_t {
  kNone = 0,  // not a copy
  kHostToHost = 1,
  kHostToDevice = 2,
  kDeviceToHost = 3,
  kDeviceToDevice = 4,
  kUnknown = 5,  // cudaMemcpyDefault with pointers the runtime could not classify
};

// What the host side of a copy is. Pageable host memory forces the runtime to
// stage the copy through its own pinned buffer, synchronously.
enum class HostMem : uint8_t {
  kNone = 0,      // no host memory involved
  kPinned = 1,    // page-locked (cudaHostAlloc, cudaMallocHost, cudaHostRegister, ...)
  kPageable = 2,  // ordinary malloc/new/numpy memory
  kManaged = 3,   // unified memory
  kUnknown = 4,   // the runtime could not tell
};

// Event flag bits.
enum EventFlags : uint8_t {
  kFlagAsync = 1u << 0,            // the API promises asynchrony (…Async, launches)
  kFlagCapturing = 1u << 1,        // the stream was being captured into a CUDA graph
  kFlagError = 1u << 2,            // the call returned an error
  kFlagPerThreadStream = 1u << 3,  // the _ptsz variant: stream 0 means per-thread default
  // Set by the reader on a launch put back from an aggregated run
  // (trace/launch_runs.h): its times are spread over the run, not measured.
  kFlagAggregated = 1u << 4,
  // Set by the reader in its folded view (read_trace_file with
  // ReadOptions::fold_launch_runs, trace/launch_runs.h): the event stands
  // for `bytes` launches of one run on one stream, `src` holds their summed
  // host time, `dst` a handle of the run's sequence (kFoldedLaunchTag) and
  // `result` how many different kernels they launch. Never written by a
  // recorder.
  kFlagFolded = 1u << 5,
};

// A folded event's `dst`: this bit, the sequence id and the stream's place
// among the sequence's streams. Kernel handles are addresses, far below it.
inline constexpr uint64_t kFoldedLaunchTag = uint64_t{1} << 63;

// Well-known stream handles (driver_types.h).
inline constexpr uint64_t kStreamLegacy = 0x1;
inline constexpr uint64_t kStreamPerThread = 0x2;

struct Event {
  uint64_t start_ns;  // CLOCK_MONOTONIC at call entry (raw ticks while in a ring)
  uint64_t end_ns;    // CLOCK_MONOTONIC at return
  uint64_t stream;    // cudaStream_t as an integer; 0 is the legacy default stream
  uint64_t bytes;     // bytes copied/set/allocated; stream-create: creation flags
  uint64_t dst;       // destination / allocated pointer / kernel or graph handle / event
  uint64_t src;       // source pointer / waited-on event
  uint32_t stack_id;  // interned native stack, 0 = none captured
  uint32_t tid;       // kernel thread id of the caller
  uint16_t api;       // ApiId
  uint8_t direction;  // Direction
  uint8_t host_mem;   // HostMem of the host side of a copy
  uint8_t flags;      // EventFlags
  int8_t device;      // current device, -1 when not known
  int16_t result;     // cudaError_t, clamped to int16
};

static_assert(sizeof(Event) == 64, "Event is part of the trace format");

// The calls an event stands for: a folded run's launches, else 1.
inline uint64_t calls_of(const Event& e) { return (e.flags & kFlagFolded) ? e.bytes : 1; }
// The host time spent inside the calls it stands for.
inline uint64_t host_ns_of(const Event& e) {
  if (e.flags & kFlagFolded) return e.src;
  return e.end_ns >= e.start_ns ? e.end_ns - e.start_ns : 0;
}
// Different kernels among the launches it stands for: a launch's 1.
inline uint64_t kernels_of(const Event& e) {
  return (e.flags & kFlagFolded) ? static_cast<uint64_t>(e.result > 0 ? e.result : 1) : 1;
}
// Bytes the call moved or allocated (a folded run's `bytes` is a count).
inline uint64_t bytes_of(const Event& e) { return (e.flags & kFlagFolded) ? 0 : e.bytes; }
static_assert(std::is_trivially_copyable_v<Event>);

}  // namespace syncscope
