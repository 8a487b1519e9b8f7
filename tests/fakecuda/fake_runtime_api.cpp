// The CUDA runtime API of the fake: every entry point syncscope intercepts,
// plus what programs need around them, simulated on the CPU (fake_streams,
// fake_memory, fake_registration). Test scaffolding only: it lets CI drive
// the real preload, launcher and trace end to end without a GPU.
//
// Entry points with a _ptsz/_ptds twin share one implementation; the twin
// reads stream 0 as the calling thread's per-thread default stream.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>

#include <cstring>
#include <mutex>
#include <set>

#include "fake_activity.h"
#include "fake_kernels.h"
#include "fake_memory.h"
#include "fake_streams.h"
#include "preload/hooks/cuda_private_api.h"

#define FAKE_API extern "C" __attribute__((visibility("default")))

// The marker tools look for to tell a simulated run from a real GPU.
extern "C" {
__attribute__((visibility("default"))) int syncscopeFakeCudaRuntime = 1;
}

using namespace fakecuda;

namespace {

thread_local cudaError_t t_last_error = cudaSuccess;

cudaError_t fail(cudaError_t e) {
  t_last_error = e;
  return e;
}

// Simulated costs (as measured on an H100 where it matters to syncscope).
constexpr uint64_t kPinnedNsPerMiB = 40000;     // ~25 GB/s
constexpr uint64_t kPageableNsPerMiB = 100000;  // ~10 GB/s: staged through a bounce buffer
constexpr uint64_t kMallocNs = 20000;           // cudaMalloc, cudaMallocHost, cudaHostAlloc
constexpr uint64_t kMemsetBaseNs = 2000;        // plus 1 ns per KB (~1 TB/s)

uint64_t copy_ns(size_t bytes, bool pageable) {
  return bytes * (pageable ? kPageableNsPerMiB : kPinnedNsPerMiB) / (1u << 20);
}

// ---------------------------------------------------------------- copies

// Checks a copy's pointers (device sides must lie in tracked memory) and says
// whether its host side is pageable.
cudaError_t check_copy(void* dst, const void* src, size_t dst_bytes, size_t src_bytes, cudaMemcpyKind kind,
                       bool* pageable) {
  if (dst == nullptr || src == nullptr) return cudaErrorInvalidValue;
  switch (kind) {
    case cudaMemcpyHostToHost:
      *pageable = false;
      return cudaSuccess;
    case cudaMemcpyHostToDevice:
      if (!device_accessible(dst, dst_bytes)) return cudaErrorInvalidValue;
      *pageable = kind_of(src) == MemKind::kPageable;
      return cudaSuccess;
    case cudaMemcpyDeviceToHost:
      if (!device_accessible(src, src_bytes)) return cudaErrorInvalidValue;
      *pageable = kind_of(dst) == MemKind::kPageable;
      return cudaSuccess;
    case cudaMemcpyDeviceToDevice:
      if (!device_accessible(src, src_bytes) || !device_accessible(dst, dst_bytes)) return cudaErrorInvalidValue;
      *pageable = false;
      return cudaSuccess;
    case cudaMemcpyDefault:  // unified addressing: untracked memory is pageable host memory
      *pageable = kind_of(src) == MemKind::kPageable || kind_of(dst) == MemKind::kPageable;
      return cudaSuccess;
  }
  return cudaErrorInvalidMemcpyDirection;
}

// Runs a transfer that `move` performs and that takes `duration` on the
// simulated GPU. Asynchronous ones are queued on the stream. The others block
// the caller: wait for the stream's earlier work, then move the bytes on the
// calling thread for the simulated time, as the real runtime does for
// pageable memory. On a capturing stream everything is captured.
// `op` (fake_activity.h) is what the fake CUPTI hears of it when it ran.
cudaError_t transfer(Stream* stream, bool async, uint64_t duration, std::function<void()> move,
                     SyncscopeFakeGpuOp op = {}) {
  if (stream->capture.load() != nullptr || async) {
    std::function<void(uint64_t)> action = [move = std::move(move)](uint64_t) { move(); };
    if (op.kind != 0) action = reporting(std::move(action), op, duration);
    submit(stream, Work{duration, std::move(action), {}});
    return cudaSuccess;
  }
  wait_stream_point(stream);
  uint64_t start = now_ns();
  move();
  sleep_until_ns(start + duration);
  if (op.kind != 0) {
    op.start_ns = start;
    op.end_ns = start + duration;
    report_gpu(op);
  }
  return cudaSuccess;
}

// What the fake CUPTI reports of a copy: CUpti_ActivityMemcpyKind and the
// memory kinds of both sides.
SyncscopeFakeGpuOp copy_op(void* dst, const void* src, size_t bytes, Stream* stream, bool async) {
  SyncscopeFakeGpuOp op = gpu_op(2, stream);
  if (op.correlation == 0) return SyncscopeFakeGpuOp{};
  op.bytes = bytes;
  op.src_kind = memory_kind(src);
  op.dst_kind = memory_kind(dst);
  bool src_device = op.src_kind == 3 || op.src_kind == 5, dst_device = op.dst_kind == 3 || op.dst_kind == 5;
  op.copy_kind = src_device ? (dst_device ? 8 : 2) : (dst_device ? 1 : 9);
  op.async = async;
  return op;
}

// An asynchronous copy with a pageable host side is synchronous.
cudaError_t copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, Stream* stream, bool async) {
  ApiScope scope(async ? "cudaMemcpyAsync" : "cudaMemcpy");
  if (stream == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (bytes == 0) return cudaSuccess;
  bool pageable = false;
  if (cudaError_t e = check_copy(dst, src, bytes, bytes, kind, &pageable); e != cudaSuccess) return fail(e);
  return transfer(
      stream, async && !pageable, copy_ns(bytes, pageable), [dst, src, bytes] { std::memmove(dst, src, bytes); },
      copy_op(dst, src, bytes, stream, async && !pageable));
}

// 2D copies move `height` rows of `width` bytes between pitched buffers.
cudaError_t copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                    cudaMemcpyKind kind, Stream* stream, bool async) {
  ApiScope scope(async ? "cudaMemcpy2DAsync" : "cudaMemcpy2D");
  if (stream == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
  if (width == 0 || height == 0) return cudaSuccess;
  bool pageable = false;
  cudaError_t e = check_copy(dst, src, dpitch * (height - 1) + width, spitch * (height - 1) + width, kind, &pageable);
  if (e != cudaSuccess) return fail(e);
  return transfer(
      stream, async && !pageable, copy_ns(width * height, pageable),
      [=] {
        for (size_t row = 0; row < height; ++row)
          std::memmove(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width);
      },
      copy_op(dst, src, width * height, stream, async && !pageable));
}

cudaError_t memset_on(void* p, int value, size_t n, Stream* stream, bool async) {
  ApiScope scope(async ? "cudaMemsetAsync" : "cudaMemset");
  if (stream == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (n == 0) return cudaSuccess;
  if (p == nullptr || !device_accessible(p, n)) return fail(cudaErrorInvalidValue);
  SyncscopeFakeGpuOp op = gpu_op(3, stream);
  op.bytes = n;
  op.src_kind = memory_kind(p);
  op.async = async;
  return transfer(
      stream, async, kMemsetBaseNs + n / 1000, [p, value, n] { std::memset(p, value, n); },
      op.correlation != 0 ? op : SyncscopeFakeGpuOp{});
}

// ---------------------------------------------------------------- launches

cudaError_t launch(const void* kernel, dim3 grid, dim3 block, void** args, Stream* stream) {
  ApiScope scope("cudaLaunchKernel");
  if (stream == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (kernel == nullptr || !known_kernel(kernel)) return fail(cudaErrorInvalidDeviceFunction);
  uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (uint64_t{grid.x} * grid.y * grid.z == 0 || threads == 0 || threads > 1024)
    return fail(cudaErrorInvalidConfiguration);
  uint64_t duration = kernel_duration_ns(kernel, args);
  std::function<void(uint64_t)> action;
  if (activity_on()) {
    SyncscopeFakeGpuOp op = gpu_op(1, stream);
    op.name = kernel_name(kernel);
    action = reporting([](uint64_t) {}, op, duration);
  }
  submit(stream, Work{duration, std::move(action), {}});
  return cudaSuccess;
}

// ---------------------------------------------------------------- events and graphs

struct FakeEvent {
  bool timing;
  EventRecord record;  // guarded by g_objects_mutex
};

struct GraphExec {
  std::vector<Work> work;
};

// Live handles, so a bad one is an error instead of a crash.
std::mutex* g_objects_mutex = new std::mutex();
auto* g_events = new std::set<FakeEvent*>();
auto* g_graphs = new std::set<Graph*>();
auto* g_execs = new std::set<GraphExec*>();

// A copy of the event's last record; false for an unknown handle.
bool event_record(cudaEvent_t e, EventRecord* out, bool* timing = nullptr) {
  std::lock_guard<std::mutex> lock(*g_objects_mutex);
  auto* ev = reinterpret_cast<FakeEvent*>(e);
  if (g_events->count(ev) == 0) return false;
  *out = ev->record;
  if (timing) *timing = ev->timing;
  return true;
}

cudaError_t event_record_on(cudaEvent_t e, cudaStream_t handle, bool pt) {
  Stream* s = stream_from_handle(handle, pt);
  EventRecord unused;
  if (s == nullptr || !event_record(e, &unused)) return fail(cudaErrorInvalidResourceHandle);
  auto time = std::make_shared<std::atomic<uint64_t>>(0);
  uint64_t ticket = submit(s, Work{0, [time](uint64_t start) { time->store(start); }, {}});
  if (ticket == 0) return cudaSuccess;  // captured: an event node, not modelled
  std::lock_guard<std::mutex> lock(*g_objects_mutex);
  auto* ev = reinterpret_cast<FakeEvent*>(e);
  if (g_events->count(ev)) ev->record = EventRecord{s, ticket, time};
  return cudaSuccess;
}

cudaError_t stream_wait_event(cudaStream_t handle, cudaEvent_t e, bool pt) {
  Stream* s = stream_from_handle(handle, pt);
  EventRecord rec;
  if (s == nullptr || !event_record(e, &rec)) return fail(cudaErrorInvalidResourceHandle);
  if (rec.stream == nullptr || rec.stream == s) return cudaSuccess;  // nothing recorded, or already in order
  submit(s, Work{0, nullptr, {{rec.stream, rec.ticket}}});
  return cudaSuccess;
}

void reset_after_fork_child() {
  reset_streams_after_fork();
  reset_memory_after_fork();
  reset_registration_after_fork();
  // The parent's events point at streams the child does not have.
  g_objects_mutex = new std::mutex();
  g_events = new std::set<FakeEvent*>();
}

__attribute__((constructor)) void install_fork_handler() { pthread_atfork(nullptr, nullptr, reset_after_fork_child); }

// ---------------------------------------------------------------- error names

const char* error_name(cudaError_t e) {
  switch (e) {
#define FAKE_ERROR(name) \
  case name:             \
    return #name;
    FAKE_ERROR(cudaSuccess)
    FAKE_ERROR(cudaErrorInvalidValue)
    FAKE_ERROR(cudaErrorMemoryAllocation)
    FAKE_ERROR(cudaErrorInitializationError)
    FAKE_ERROR(cudaErrorInvalidConfiguration)
    FAKE_ERROR(cudaErrorInvalidPitchValue)
    FAKE_ERROR(cudaErrorInvalidSymbol)
    FAKE_ERROR(cudaErrorInvalidMemcpyDirection)
    FAKE_ERROR(cudaErrorInvalidDevice)
    FAKE_ERROR(cudaErrorInvalidDeviceFunction)
    FAKE_ERROR(cudaErrorMissingConfiguration)
    FAKE_ERROR(cudaErrorInvalidResourceHandle)
    FAKE_ERROR(cudaErrorNotReady)
    FAKE_ERROR(cudaErrorHostMemoryAlreadyRegistered)
    FAKE_ERROR(cudaErrorHostMemoryNotRegistered)
    FAKE_ERROR(cudaErrorStreamCaptureUnsupported)
    FAKE_ERROR(cudaErrorStreamCaptureInvalidated)
    FAKE_ERROR(cudaErrorIllegalState)
    FAKE_ERROR(cudaErrorNotSupported)
    FAKE_ERROR(cudaErrorNoDevice)
    FAKE_ERROR(cudaErrorUnknown)
#undef FAKE_ERROR
    default:
      return nullptr;
  }
}

}  // namespace

// ---------------------------------------------------------------- errors, device
FAKE_API cudaError_t cudaGetLastError() {
  cudaError_t e = t_last_error;
  t_last_error = cudaSuccess;
  return e;
}
FAKE_API cudaError_t cudaPeekAtLastError() { return t_last_error; }
FAKE_API const char* cudaGetErrorName(cudaError_t e) {
  const char* name = error_name(e);
  return name ? name : "cudaErrorUnknown";
}
FAKE_API const char* cudaGetErrorString(cudaError_t e) {
  if (e == cudaSuccess) return "no error";
  const char* name = error_name(e);
  return name ? name : "unrecognized error code (fake CUDA runtime)";
}
FAKE_API cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return fail(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }
FAKE_API cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return fail(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }
FAKE_API cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (flags == nullptr) return fail(cudaErrorInvalidValue);
  *flags = 0;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof(*prop));
  std::strncpy(prop->name, "syncscope fake GPU (simulated)", sizeof(prop->name) - 1);
  prop->totalGlobalMem = 16ull << 30;
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = 132;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 0x7fffffff;
  prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
  prop->sharedMemPerBlock = 48 << 10;
  prop->regsPerBlock = 65536;
  prop->unifiedAddressing = 1;
  prop->managedMemory = 1;
  prop->concurrentManagedAccess = 1;
  prop->cooperativeLaunch = 1;
  prop->asyncEngineCount = 2;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (value == nullptr) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevAttrComputeCapabilityMajor:
      *value = 9;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = 0;
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = 132;
      break;
    case cudaDevAttrWarpSize:
      *value = 32;
      break;
    case cudaDevAttrMaxThreadsPerBlock:
      *value = 1024;
      break;
    case cudaDevAttrCooperativeLaunch:
    case cudaDevAttrUnifiedAddressing:
    case cudaDevAttrManagedMemory:
    case cudaDevAttrConcurrentManagedAccess:
      *value = 1;
      break;
    default:
      *value = 0;
      break;
  }
  return cudaSuccess;
}
FAKE_API cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaDriverGetVersion(int* v) {
  if (v == nullptr) return fail(cudaErrorInvalidValue);
  *v = CUDART_VERSION;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaRuntimeGetVersion(int* v) {
  if (v == nullptr) return fail(cudaErrorInvalidValue);
  *v = CUDART_VERSION;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  if (free_bytes == nullptr || total == nullptr) return fail(cudaErrorInvalidValue);
  *free_bytes = 15ull << 30;
  *total = 16ull << 30;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaDeviceReset() {
  synchronize_device();  // allocations stay valid: freeing them could crash a test at exit
  return cudaSuccess;
}
FAKE_API cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  if (attr == nullptr) return fail(cudaErrorInvalidValue);
  if (!known_kernel(func)) return fail(cudaErrorInvalidDeviceFunction);
  std::memset(attr, 0, sizeof(*attr));
  attr->maxThreadsPerBlock = 1024;
  attr->numRegs = 16;
  attr->ptxVersion = attr->binaryVersion = 90;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute, int) {
  return known_kernel(func) ? cudaSuccess : fail(cudaErrorInvalidDeviceFunction);
}
FAKE_API cudaError_t cudaFuncGetName(const char** name, const void* func) {
  if (name == nullptr) return fail(cudaErrorInvalidValue);
  const char* n = kernel_name(func);
  if (n == nullptr) return fail(cudaErrorInvalidDeviceFunction);
  *name = n;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* ptr) {
  if (attr == nullptr) return fail(cudaErrorInvalidValue);
  std::memset(attr, 0, sizeof(*attr));
  switch (kind_of(ptr)) {
    case MemKind::kPageable:
      attr->type = cudaMemoryTypeUnregistered;
      break;
    case MemKind::kDevice:
      attr->type = cudaMemoryTypeDevice;
      break;
    case MemKind::kPinned:
    case MemKind::kRegistered:
      attr->type = cudaMemoryTypeHost;
      break;
    case MemKind::kManaged:
      attr->type = cudaMemoryTypeManaged;
      break;
  }
  attr->device = 0;
  attr->devicePointer = attr->type == cudaMemoryTypeUnregistered ? nullptr : const_cast<void*>(ptr);
  attr->hostPointer = attr->type == cudaMemoryTypeDevice ? nullptr : const_cast<void*>(ptr);
  return cudaSuccess;
}

// ---------------------------------------------------------------- synchronization
// What the fake CUPTI hears of a host synchronisation: its wait.
static void report_sync(int type, Stream* s, uint64_t start) {
  if (!activity_on()) return;
  SyncscopeFakeGpuOp op = gpu_op(4, s);
  op.sync_type = type;
  op.start_ns = start;
  op.end_ns = now_ns();
  report_gpu(op);
}
FAKE_API cudaError_t cudaDeviceSynchronize() {
  ApiScope scope("cudaDeviceSynchronize");
  uint64_t start = now_ns();
  synchronize_device();
  report_sync(4, nullptr, start);  // CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE
  return cudaSuccess;
}
static cudaError_t stream_synchronize(cudaStream_t handle, bool pt) {
  ApiScope scope("cudaStreamSynchronize");
  Stream* s = stream_from_handle(handle, pt);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (s->capture.load() != nullptr) return fail(cudaErrorStreamCaptureUnsupported);
  uint64_t start = now_ns();
  wait_stream_point(s);      // the legacy stream also waits for blocking streams' earlier work
  report_sync(3, s, start);  // CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamSynchronize(cudaStream_t s) { return stream_synchronize(s, false); }
FAKE_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) { return stream_synchronize(s, true); }
static cudaError_t stream_query(cudaStream_t handle, bool pt) {
  Stream* s = stream_from_handle(handle, pt);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  return s->idle() ? cudaSuccess : cudaErrorNotReady;
}
FAKE_API cudaError_t cudaStreamQuery(cudaStream_t s) { return stream_query(s, false); }
FAKE_API cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) { return stream_query(s, true); }

FAKE_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int flags) {
  if (e == nullptr) return fail(cudaErrorInvalidValue);
  auto* ev = new FakeEvent{(flags & cudaEventDisableTiming) == 0, {}};
  std::lock_guard<std::mutex> lock(*g_objects_mutex);
  g_events->insert(ev);
  *e = reinterpret_cast<cudaEvent_t>(ev);
  return cudaSuccess;
}
FAKE_API cudaError_t cudaEventCreate(cudaEvent_t* e) { return cudaEventCreateWithFlags(e, cudaEventDefault); }
FAKE_API cudaError_t cudaEventDestroy(cudaEvent_t e) {
  std::lock_guard<std::mutex> lock(*g_objects_mutex);
  // Leaked, not deleted: a handle must never be reused while tests hold it.
  return g_events->erase(reinterpret_cast<FakeEvent*>(e)) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}
FAKE_API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { return event_record_on(e, s, false); }
FAKE_API cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) { return event_record_on(e, s, true); }
FAKE_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int) {
  return event_record_on(e, s, false);
}
FAKE_API cudaError_t cudaEventQuery(cudaEvent_t e) {
  EventRecord rec;
  if (!event_record(e, &rec)) return fail(cudaErrorInvalidResourceHandle);
  return rec.stream == nullptr || rec.stream->reached(rec.ticket) ? cudaSuccess : cudaErrorNotReady;
}
FAKE_API cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  ApiScope scope("cudaEventSynchronize");
  EventRecord rec;
  if (!event_record(e, &rec)) return fail(cudaErrorInvalidResourceHandle);
  uint64_t start = now_ns();
  if (rec.stream != nullptr) rec.stream->wait_for(rec.ticket);
  report_sync(1, rec.stream, start);  // CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE
  return cudaSuccess;
}
FAKE_API cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr) return fail(cudaErrorInvalidValue);
  EventRecord a, b;
  bool timing_a = false, timing_b = false;
  if (!event_record(start, &a, &timing_a) || !event_record(end, &b, &timing_b) || !timing_a || !timing_b ||
      a.stream == nullptr || b.stream == nullptr)
    return fail(cudaErrorInvalidResourceHandle);
  if (!a.stream->reached(a.ticket) || !b.stream->reached(b.ticket)) return fail(cudaErrorNotReady);
  double ns = static_cast<double>(b.time_ns->load()) - static_cast<double>(a.time_ns->load());
  *ms = static_cast<float>(ns / 1e6);
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int) {
  return stream_wait_event(s, e, false);
}
FAKE_API cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e, unsigned int) {
  return stream_wait_event(s, e, true);
}

// ---------------------------------------------------------------- copies and memsets
// Synchronous copies and memsets run on the legacy default stream (the
// per-thread one for _ptds): they wait for its earlier work, and by its
// implicit ordering for that of blocking streams.
FAKE_API cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  return copy(dst, src, n, kind, stream_from_handle(nullptr, false), false);
}
FAKE_API cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  return copy(dst, src, n, kind, stream_from_handle(nullptr, true), false);
}
FAKE_API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t s) {
  return copy(dst, src, n, kind, stream_from_handle(s, false), true);
}
FAKE_API cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t s) {
  return copy(dst, src, n, kind, stream_from_handle(s, true), true);
}
FAKE_API cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                                  cudaMemcpyKind kind) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream_from_handle(nullptr, false), false);
}
FAKE_API cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                       size_t height, cudaMemcpyKind kind) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream_from_handle(nullptr, true), false);
}
FAKE_API cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                       size_t height, cudaMemcpyKind kind, cudaStream_t s) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream_from_handle(s, false), true);
}
FAKE_API cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                            size_t height, cudaMemcpyKind kind, cudaStream_t s) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream_from_handle(s, true), true);
}
FAKE_API cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t n) {
  if (dst_device != 0 || src_device != 0) return fail(cudaErrorInvalidDevice);
  return copy(dst, src, n, cudaMemcpyDeviceToDevice, stream_from_handle(nullptr, false), false);
}
FAKE_API cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t n,
                                         cudaStream_t s) {
  if (dst_device != 0 || src_device != 0) return fail(cudaErrorInvalidDevice);
  return copy(dst, src, n, cudaMemcpyDeviceToDevice, stream_from_handle(s, false), true);
}
// __device__ variables live in their host shadow (fake_registration.cpp).
static cudaError_t memcpy_to_symbol(const void* symbol, const void* src, size_t n, size_t offset, cudaMemcpyKind kind,
                                    bool pt) {
  ApiScope scope("cudaMemcpyToSymbol");
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return fail(cudaErrorInvalidMemcpyDirection);
  void* address = symbol_address(symbol, offset, n);
  if (address == nullptr) return fail(cudaErrorInvalidSymbol);
  if (src == nullptr) return fail(cudaErrorInvalidValue);
  bool pageable = kind_of(src) == MemKind::kPageable;
  SyncscopeFakeGpuOp op = copy_op(address, src, n, stream_from_handle(nullptr, pt), false);
  if (op.kind != 0) {
    op.dst_kind = 6;  // CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC
    op.copy_kind = op.src_kind == 3 || op.src_kind == 5 ? 8 : 1;
  }
  return transfer(
      stream_from_handle(nullptr, pt), false, copy_ns(n, pageable),
      [address, src, n] { std::memmove(address, src, n); }, op);
}
static cudaError_t memcpy_from_symbol(void* dst, const void* symbol, size_t n, size_t offset, cudaMemcpyKind kind,
                                      bool pt) {
  ApiScope scope("cudaMemcpyFromSymbol");
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return fail(cudaErrorInvalidMemcpyDirection);
  const void* address = symbol_address(symbol, offset, n);
  if (address == nullptr) return fail(cudaErrorInvalidSymbol);
  if (dst == nullptr) return fail(cudaErrorInvalidValue);
  bool pageable = kind_of(dst) == MemKind::kPageable;
  SyncscopeFakeGpuOp op = copy_op(dst, address, n, stream_from_handle(nullptr, pt), false);
  if (op.kind != 0) {
    op.src_kind = 6;  // CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC
    op.copy_kind = op.dst_kind == 3 || op.dst_kind == 5 ? 8 : 2;
  }
  return transfer(
      stream_from_handle(nullptr, pt), false, copy_ns(n, pageable),
      [dst, address, n] { std::memmove(dst, address, n); }, op);
}
FAKE_API cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t n, size_t offset,
                                        cudaMemcpyKind kind) {
  return memcpy_to_symbol(symbol, src, n, offset, kind, false);
}
FAKE_API cudaError_t cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t n, size_t offset,
                                             cudaMemcpyKind kind) {
  return memcpy_to_symbol(symbol, src, n, offset, kind, true);
}
FAKE_API cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t n, size_t offset, cudaMemcpyKind kind) {
  return memcpy_from_symbol(dst, symbol, n, offset, kind, false);
}
FAKE_API cudaError_t cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t n, size_t offset,
                                               cudaMemcpyKind kind) {
  return memcpy_from_symbol(dst, symbol, n, offset, kind, true);
}
FAKE_API cudaError_t cudaGetSymbolAddress(void** dev_ptr, const void* symbol) {
  if (dev_ptr == nullptr) return fail(cudaErrorInvalidValue);
  void* address = symbol_address(symbol, 0, 0);
  if (address == nullptr) return fail(cudaErrorInvalidSymbol);
  *dev_ptr = address;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaMemset(void* p, int value, size_t n) {
  return memset_on(p, value, n, stream_from_handle(nullptr, false), false);
}
FAKE_API cudaError_t cudaMemset_ptds(void* p, int value, size_t n) {
  return memset_on(p, value, n, stream_from_handle(nullptr, true), false);
}
FAKE_API cudaError_t cudaMemsetAsync(void* p, int value, size_t n, cudaStream_t s) {
  return memset_on(p, value, n, stream_from_handle(s, false), true);
}
FAKE_API cudaError_t cudaMemsetAsync_ptsz(void* p, int value, size_t n, cudaStream_t s) {
  return memset_on(p, value, n, stream_from_handle(s, true), true);
}

// ---------------------------------------------------------------- memory
FAKE_API cudaError_t cudaMalloc(void** p, size_t n) {
  if (p == nullptr) return fail(cudaErrorInvalidValue);
  sleep_ns(kMallocNs);
  *p = allocate(n, MemKind::kDevice);
  return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}
FAKE_API cudaError_t cudaFree(void* p) {
  if (p == nullptr) return cudaSuccess;
  synchronize_device();  // the real cudaFree synchronises the device
  return release(p, MemKind::kDevice) || release(p, MemKind::kManaged) ? cudaSuccess : fail(cudaErrorInvalidValue);
}
static cudaError_t malloc_async(void** p, size_t n, cudaStream_t handle, bool pt) {
  if (p == nullptr) return fail(cudaErrorInvalidValue);
  if (stream_from_handle(handle, pt) == nullptr) return fail(cudaErrorInvalidResourceHandle);
  *p = allocate(n, MemKind::kDevice);  // from a pool: no cost, no sync
  return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}
FAKE_API cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t s) { return malloc_async(p, n, s, false); }
FAKE_API cudaError_t cudaMallocAsync_ptsz(void** p, size_t n, cudaStream_t s) { return malloc_async(p, n, s, true); }
static cudaError_t free_async(void* p, cudaStream_t handle, bool pt) {
  Stream* s = stream_from_handle(handle, pt);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (!is_allocation(p, MemKind::kDevice)) return fail(cudaErrorInvalidValue);
  submit(s, Work{0, [p](uint64_t) { release(p, MemKind::kDevice); }, {}});
  return cudaSuccess;
}
FAKE_API cudaError_t cudaFreeAsync(void* p, cudaStream_t s) { return free_async(p, s, false); }
FAKE_API cudaError_t cudaFreeAsync_ptsz(void* p, cudaStream_t s) { return free_async(p, s, true); }
FAKE_API cudaError_t cudaMallocManaged(void** p, size_t n, unsigned int) {
  if (p == nullptr) return fail(cudaErrorInvalidValue);
  *p = allocate(n, MemKind::kManaged);
  return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}
FAKE_API cudaError_t cudaMallocHost(void** p, size_t n) {
  if (p == nullptr) return fail(cudaErrorInvalidValue);
  sleep_ns(kMallocNs);
  *p = allocate(n, MemKind::kPinned);
  return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}
FAKE_API cudaError_t cudaHostAlloc(void** p, size_t n, unsigned int) { return cudaMallocHost(p, n); }
FAKE_API cudaError_t cudaFreeHost(void* p) {
  if (p == nullptr) return cudaSuccess;
  synchronize_device();  // like cudaFree
  return release(p, MemKind::kPinned) ? cudaSuccess : fail(cudaErrorInvalidValue);
}
FAKE_API cudaError_t cudaHostRegister(void* p, size_t n, unsigned int) {
  if (p == nullptr || n == 0) return fail(cudaErrorInvalidValue);
  return register_range(p, n) ? cudaSuccess : fail(cudaErrorHostMemoryAlreadyRegistered);
}
FAKE_API cudaError_t cudaHostUnregister(void* p) {
  return unregister_range(p) ? cudaSuccess : fail(cudaErrorHostMemoryNotRegistered);
}
FAKE_API cudaError_t cudaHostGetDevicePointer(void** dev_ptr, void* host, unsigned int) {
  if (dev_ptr == nullptr || !is_pinned(kind_of(host))) return fail(cudaErrorInvalidValue);
  *dev_ptr = host;  // unified addressing: the same address
  return cudaSuccess;
}

// ---------------------------------------------------------------- launches
FAKE_API cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 grid, dim3 block, void** args, size_t, cudaStream_t s) {
  return launch(k, grid, block, args, stream_from_handle(s, false));
}
FAKE_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 grid, dim3 block, void** args, size_t,
                                             cudaStream_t s) {
  return launch(k, grid, block, args, stream_from_handle(s, true));
}
FAKE_API cudaError_t cudaLaunchKernel(const void* f, dim3 grid, dim3 block, void** args, size_t, cudaStream_t s) {
  return launch(f, grid, block, args, stream_from_handle(s, false));
}
FAKE_API cudaError_t cudaLaunchKernel_ptsz(const void* f, dim3 grid, dim3 block, void** args, size_t, cudaStream_t s) {
  return launch(f, grid, block, args, stream_from_handle(s, true));
}
FAKE_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* c, const void* f, void** args) {
  if (c == nullptr) return fail(cudaErrorInvalidValue);
  return launch(f, c->gridDim, c->blockDim, args, stream_from_handle(c->stream, false));
}
FAKE_API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* c, const void* f, void** args) {
  if (c == nullptr) return fail(cudaErrorInvalidValue);
  return launch(f, c->gridDim, c->blockDim, args, stream_from_handle(c->stream, true));
}
FAKE_API cudaError_t cudaLaunchCooperativeKernel(const void* f, dim3 grid, dim3 block, void** args, size_t,
                                                 cudaStream_t s) {
  return launch(f, grid, block, args, stream_from_handle(s, false));
}
FAKE_API cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* f, dim3 grid, dim3 block, void** args, size_t,
                                                      cudaStream_t s) {
  return launch(f, grid, block, args, stream_from_handle(s, true));
}
static cudaError_t launch_host_func(cudaStream_t handle, cudaHostFn_t fn, void* data, bool pt) {
  Stream* s = stream_from_handle(handle, pt);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (fn == nullptr) return fail(cudaErrorInvalidValue);
  submit(s, Work{0, [fn, data](uint64_t) { fn(data); }, {}});
  return cudaSuccess;
}
FAKE_API cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void* data) {
  return launch_host_func(s, fn, data, false);
}
FAKE_API cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t s, cudaHostFn_t fn, void* data) {
  return launch_host_func(s, fn, data, true);
}

// ---------------------------------------------------------------- streams and graphs
FAKE_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int flags) {
  if (s == nullptr) return fail(cudaErrorInvalidValue);
  *s = static_cast<cudaStream_t>(create_stream((flags & cudaStreamNonBlocking) == 0));
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamCreate(cudaStream_t* s) { return cudaStreamCreateWithFlags(s, cudaStreamDefault); }
FAKE_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned int flags, int) {
  return cudaStreamCreateWithFlags(s, flags);
}
FAKE_API cudaError_t cudaStreamDestroy(cudaStream_t s) {
  return destroy_stream(s) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}
static cudaError_t stream_get_flags(cudaStream_t handle, unsigned int* flags, bool pt) {
  Stream* s = stream_from_handle(handle, pt);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (flags == nullptr) return fail(cudaErrorInvalidValue);
  *flags = s->blocking ? cudaStreamDefault : cudaStreamNonBlocking;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int* f) { return stream_get_flags(s, f, false); }
FAKE_API cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t s, unsigned int* f) { return stream_get_flags(s, f, true); }

static cudaError_t begin_capture(cudaStream_t handle, bool pt) {
  Stream* s = stream_from_handle(handle, pt);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (s->legacy) return fail(cudaErrorStreamCaptureUnsupported);
  auto* graph = new Graph();
  Graph* expected = nullptr;
  if (!s->capture.compare_exchange_strong(expected, graph)) {
    delete graph;
    return fail(cudaErrorIllegalState);
  }
  std::lock_guard<std::mutex> lock(*g_objects_mutex);
  g_graphs->insert(graph);
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) { return begin_capture(s, false); }
FAKE_API cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t s, cudaStreamCaptureMode) {
  return begin_capture(s, true);
}
static cudaError_t end_capture(cudaStream_t handle, cudaGraph_t* graph, bool pt) {
  Stream* s = stream_from_handle(handle, pt);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (graph == nullptr) return fail(cudaErrorInvalidValue);
  Graph* captured = s->capture.exchange(nullptr);
  if (captured == nullptr) return fail(cudaErrorIllegalState);
  *graph = reinterpret_cast<cudaGraph_t>(captured);
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* g) { return end_capture(s, g, false); }
FAKE_API cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t s, cudaGraph_t* g) { return end_capture(s, g, true); }
static cudaError_t is_capturing(cudaStream_t handle, cudaStreamCaptureStatus* status, bool pt) {
  Stream* s = stream_from_handle(handle, pt);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (status == nullptr) return fail(cudaErrorInvalidValue);
  *status = s->capture.load() ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus* st) {
  return is_capturing(s, st, false);
}
FAKE_API cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t s, cudaStreamCaptureStatus* st) {
  return is_capturing(s, st, true);
}
static cudaError_t get_capture_info(cudaStream_t handle, cudaStreamCaptureStatus* status, unsigned long long* id,
                                    cudaGraph_t* graph, const cudaGraphNode_t** deps, const cudaGraphEdgeData** edges,
                                    size_t* num_deps, bool pt) {
  Stream* s = stream_from_handle(handle, pt);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (status == nullptr) return fail(cudaErrorInvalidValue);
  Graph* g = s->capture.load();
  *status = g ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  if (id) *id = reinterpret_cast<uintptr_t>(g);
  if (graph) *graph = reinterpret_cast<cudaGraph_t>(g);
  if (deps) *deps = nullptr;  // graph nodes are not modelled
  if (edges) *edges = nullptr;
  if (num_deps) *num_deps = 0;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, cudaStreamCaptureStatus* st, unsigned long long* id,
                                              cudaGraph_t* g, const cudaGraphNode_t** d, const cudaGraphEdgeData** e,
                                              size_t* n) {
  return get_capture_info(s, st, id, g, d, e, n, false);
}
FAKE_API cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t s, cudaStreamCaptureStatus* st, unsigned long long* id,
                                                   cudaGraph_t* g, const cudaGraphNode_t** d,
                                                   const cudaGraphEdgeData** e, size_t* n) {
  return get_capture_info(s, st, id, g, d, e, n, true);
}
FAKE_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  if (exec == nullptr) return fail(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(*g_objects_mutex);
  auto* g = reinterpret_cast<Graph*>(graph);
  if (g_graphs->count(g) == 0) return fail(cudaErrorInvalidValue);
  auto* e = new GraphExec();
  {
    std::lock_guard<std::mutex> graph_lock(g->mutex);
    e->work = g->work;
  }
  g_execs->insert(e);
  *exec = reinterpret_cast<cudaGraphExec_t>(e);
  return cudaSuccess;
}
FAKE_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long f) {
  return cudaGraphInstantiate(exec, graph, f);
}
static cudaError_t graph_launch(cudaGraphExec_t exec, cudaStream_t handle, bool pt) {
  ApiScope scope("cudaGraphLaunch");
  Stream* s = stream_from_handle(handle, pt);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  std::vector<Work> work;
  {
    std::lock_guard<std::mutex> lock(*g_objects_mutex);
    auto* e = reinterpret_cast<GraphExec*>(exec);
    if (g_execs->count(e) == 0) return fail(cudaErrorInvalidValue);
    work = e->work;
  }
  for (Work& w : work) {
    w.action = replayed(std::move(w.action), current_correlation());
    submit(s, std::move(w));
  }
  return cudaSuccess;
}
FAKE_API cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s) { return graph_launch(exec, s, false); }
FAKE_API cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t s) { return graph_launch(exec, s, true); }
FAKE_API cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  std::lock_guard<std::mutex> lock(*g_objects_mutex);
  auto* e = reinterpret_cast<GraphExec*>(exec);
  if (g_execs->erase(e) == 0) return fail(cudaErrorInvalidValue);
  delete e;  // launches copied its work
  return cudaSuccess;
}
FAKE_API cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  std::lock_guard<std::mutex> lock(*g_objects_mutex);
  auto* g = reinterpret_cast<Graph*>(graph);
  if (g_graphs->erase(g) == 0) return fail(cudaErrorInvalidValue);
  delete g;  // instantiated execs copied its work
  return cudaSuccess;
}

// ------------------------------------------------- driver entry points
// As the real runtime does: ask libcuda.so.1 (here the fake driver,
// fake_driver_api.cpp) through its cuGetProcAddress_v2, found with dlsym.
namespace {

using GetProcAddressV2 = int (*)(const char*, void**, int, unsigned long long, int*);

cudaError_t driver_entry_point(const char* symbol, void** fn, int version, unsigned long long flags,
                               cudaDriverEntryPointQueryResult* status) {
  if (symbol == nullptr || fn == nullptr) return fail(cudaErrorInvalidValue);
  static void* libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  auto get = libcuda ? reinterpret_cast<GetProcAddressV2>(dlsym(libcuda, "cuGetProcAddress_v2")) : nullptr;
  if (get == nullptr) return fail(cudaErrorSharedObjectInitFailed);
  int found = 0;
  int result = get(symbol, fn, version, flags, &found);
  if (status != nullptr) *status = static_cast<cudaDriverEntryPointQueryResult>(found);
  return result == 0 ? cudaSuccess : fail(cudaErrorSymbolNotFound);
}

}  // namespace

FAKE_API cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** fn, unsigned long long flags,
                                             cudaDriverEntryPointQueryResult* status) {
  return driver_entry_point(symbol, fn, CUDART_VERSION, flags, status);
}
FAKE_API cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int version,
                                                      unsigned long long flags,
                                                      cudaDriverEntryPointQueryResult* status) {
  return driver_entry_point(symbol, fn, static_cast<int>(version), flags, status);
}
// The driver's handle of a kernel is, in this simulation, its host stub.
FAKE_API cudaError_t cudaGetFuncBySymbol(cudaFunction_t* f, const void* symbol) {
  if (f == nullptr || symbol == nullptr) return fail(cudaErrorInvalidDeviceFunction);
  *f = reinterpret_cast<cudaFunction_t>(const_cast<void*>(symbol));
  return cudaSuccess;
}
