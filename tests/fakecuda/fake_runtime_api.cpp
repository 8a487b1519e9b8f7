// The CUDA runtime API of the fake: every entry point syncscope intercepts,
// plus what programs need around them, simulated on the CPU (fake_streams,
// fake_memory). Test scaffolding only: it lets CI drive the real preload,
// launcher and trace end to end without a GPU.
#include <cuda_runtime_api.h>
#include <pthread.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <set>

#include "fake_kernels.h"
#include "fake_memory.h"
#include "fake_streams.h"
#include "preload/cuda_private_api.h"

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

// Simulated bandwidths: pageable copies stage through a bounce buffer.
constexpr uint64_t kPinnedNsPerMiB = 40000;    // ~25 GB/s
constexpr uint64_t kPageableNsPerMiB = 100000; // ~10 GB/s, as measured on an H100
constexpr uint64_t kMallocNs = 20000;
constexpr uint64_t kDefaultKernelNs = 5000;

uint64_t copy_ns(size_t bytes, bool pageable) {
  return bytes * (pageable ? kPageableNsPerMiB : kPinnedNsPerMiB) / (1u << 20);
}

void synchronize_device() {
  for (Stream* s : all_streams()) s->drain();
}

// Whether the host side of a copy is pageable (forcing a synchronous copy).
bool host_side_pageable(const void* dst, const void* src, cudaMemcpyKind kind) {
  switch (kind) {
    case cudaMemcpyHostToDevice: return kind_of(src) == MemKind::kPageable;
    case cudaMemcpyDeviceToHost: return kind_of(dst) == MemKind::kPageable;
    case cudaMemcpyDefault:
      return kind_of(src) == MemKind::kPageable || kind_of(dst) == MemKind::kPageable;
    default: return false;
  }
}

cudaError_t copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t handle, bool async) {
  Stream* stream = stream_from_handle(handle);
  if (stream == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (bytes == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return fail(cudaErrorInvalidValue);
  const bool pageable = host_side_pageable(dst, src, kind);
  if (!async || (pageable && stream->capture == nullptr)) {
    // Synchronous: wait for the stream's earlier work (all streams for a
    // plain cudaMemcpy), then copy on the calling thread.
    if (async) stream->drain();
    else synchronize_device();
    sleep_ns(copy_ns(bytes, pageable));
    std::memmove(dst, src, bytes);
    return cudaSuccess;
  }
  submit(stream, [dst, src, bytes] {
    sleep_ns(copy_ns(bytes, false));
    std::memmove(dst, src, bytes);
  });
  return cudaSuccess;
}

cudaError_t launch(const void* kernel, void** args, cudaStream_t handle) {
  Stream* stream = stream_from_handle(handle);
  if (stream == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (kernel == nullptr) return fail(cudaErrorInvalidDeviceFunction);
  uint64_t ns = kernel_duration_ns(kernel, args);
  submit(stream, [ns] { sleep_ns(ns); });
  return cudaSuccess;
}

std::mutex g_events_mutex;
std::set<Event*>* g_events = new std::set<Event*>();

Event* event_from(cudaEvent_t e) {
  std::lock_guard<std::mutex> lock(g_events_mutex);
  auto* ev = reinterpret_cast<Event*>(e);
  return g_events->count(ev) ? ev : nullptr;
}

struct GraphExec {
  std::vector<std::function<void()>> work;
};

void reset_after_fork_child() {
  reset_after_fork();
  reset_memory_after_fork();
  new (&g_events_mutex) std::mutex();
}

__attribute__((constructor)) void install_fork_handler() {
  pthread_atfork(nullptr, nullptr, reset_after_fork_child);
}

}  // namespace

// ---------------------------------------------------------------- errors, device
FAKE_API cudaError_t cudaGetLastError() {
  cudaError_t e = t_last_error;
  t_last_error = cudaSuccess;
  return e;
}
FAKE_API cudaError_t cudaPeekAtLastError() { return t_last_error; }
FAKE_API const char* cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "fake CUDA runtime error";
}
FAKE_API const char* cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaErrorFake"; }
FAKE_API cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }
FAKE_API cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof(*prop));
  std::strncpy(prop->name, "syncscope fake GPU (simulated)", sizeof(prop->name) - 1);
  prop->totalGlobalMem = 16ull << 30;
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = 132;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  *value = attr == cudaDevAttrCooperativeLaunch ? 1 : 0;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaDriverGetVersion(int* v) {
  *v = 13000;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = 13000;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  *free_bytes = 15ull << 30;
  *total = 16ull << 30;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaDeviceReset() {
  synchronize_device();
  return cudaSuccess;
}
FAKE_API cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void*) {
  std::memset(attr, 0, sizeof(*attr));
  attr->maxThreadsPerBlock = 1024;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* ptr) {
  std::memset(attr, 0, sizeof(*attr));
  switch (kind_of(ptr)) {
    case MemKind::kPageable: attr->type = cudaMemoryTypeUnregistered; break;
    case MemKind::kDevice: attr->type = cudaMemoryTypeDevice; break;
    case MemKind::kPinned:
    case MemKind::kRegistered: attr->type = cudaMemoryTypeHost; break;
    case MemKind::kManaged: attr->type = cudaMemoryTypeManaged; break;
  }
  attr->devicePointer = attr->type == cudaMemoryTypeUnregistered ? nullptr : const_cast<void*>(ptr);
  attr->hostPointer = attr->type == cudaMemoryTypeDevice ? nullptr : const_cast<void*>(ptr);
  return cudaSuccess;
}

// ---------------------------------------------------------------- synchronization
FAKE_API cudaError_t cudaDeviceSynchronize() {
  synchronize_device();
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamSynchronize(cudaStream_t handle) {
  Stream* s = stream_from_handle(handle);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (s->capture != nullptr) return fail(cudaErrorStreamCaptureUnsupported);
  if (s->legacy) synchronize_device();  // the legacy stream waits for all blocking streams
  else s->drain();
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) { return cudaStreamSynchronize(s); }
FAKE_API cudaError_t cudaStreamQuery(cudaStream_t handle) {
  Stream* s = stream_from_handle(handle);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  return s->idle() ? cudaSuccess : cudaErrorNotReady;
}
FAKE_API cudaError_t cudaEventCreate(cudaEvent_t* e) {
  auto* ev = new Event();
  std::lock_guard<std::mutex> lock(g_events_mutex);
  g_events->insert(ev);
  *e = reinterpret_cast<cudaEvent_t>(ev);
  return cudaSuccess;
}
FAKE_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) { return cudaEventCreate(e); }
FAKE_API cudaError_t cudaEventDestroy(cudaEvent_t e) {
  std::lock_guard<std::mutex> lock(g_events_mutex);
  return g_events->erase(reinterpret_cast<Event*>(e)) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}
FAKE_API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t handle) {
  Event* ev = event_from(e);
  Stream* s = stream_from_handle(handle);
  if (ev == nullptr || s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (s->capture != nullptr) return cudaSuccess;  // an event node: nothing to simulate
  submit(s, [] {});
  ev->stream = s;
  ev->ticket = s->last_ticket();
  return cudaSuccess;
}
FAKE_API cudaError_t cudaEventQuery(cudaEvent_t e) {
  Event* ev = event_from(e);
  if (ev == nullptr) return fail(cudaErrorInvalidResourceHandle);
  return ev->stream == nullptr || ev->stream->reached(ev->ticket) ? cudaSuccess : cudaErrorNotReady;
}
FAKE_API cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  Event* ev = event_from(e);
  if (ev == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (ev->stream != nullptr) ev->stream->wait_for(ev->ticket);
  return cudaSuccess;
}
FAKE_API cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.0f;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamWaitEvent(cudaStream_t handle, cudaEvent_t e, unsigned int) {
  Stream* s = stream_from_handle(handle);
  Event* ev = event_from(e);
  if (s == nullptr || ev == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (ev->stream == nullptr || ev->stream == s) return cudaSuccess;
  Stream* other = ev->stream;
  uint64_t ticket = ev->ticket;
  submit(s, [other, ticket] { other->wait_for(ticket); });
  return cudaSuccess;
}

// ---------------------------------------------------------------- copies and memsets
FAKE_API cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  return copy(dst, src, n, kind, nullptr, false);
}
FAKE_API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t s) {
  return copy(dst, src, n, kind, s, true);
}
FAKE_API cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t n, cudaMemcpyKind kind,
                                          cudaStream_t s) {
  return copy(dst, src, n, kind, s, true);
}
// 2D copies move `height` rows of `width` bytes between pitched buffers.
static cudaError_t copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                           cudaMemcpyKind kind, cudaStream_t s, bool async) {
  if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
  for (size_t row = 0; row < height; ++row) {
    cudaError_t e = copy(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch,
                         width, kind, s, async);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
FAKE_API cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                  size_t height, cudaMemcpyKind kind) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, nullptr, false);
}
FAKE_API cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                       size_t height, cudaMemcpyKind kind, cudaStream_t s) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, s, true);
}
FAKE_API cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t n) {
  if (dst_device != 0 || src_device != 0) return fail(cudaErrorInvalidDevice);
  return copy(dst, src, n, cudaMemcpyDeviceToDevice, nullptr, false);
}
FAKE_API cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t n,
                                         cudaStream_t s) {
  if (dst_device != 0 || src_device != 0) return fail(cudaErrorInvalidDevice);
  return copy(dst, src, n, cudaMemcpyDeviceToDevice, s, true);
}
// __device__ variables live in their host shadow (fake_registration.cpp).
FAKE_API cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t n, size_t offset,
                                        cudaMemcpyKind) {
  if (symbol == nullptr || src == nullptr) return fail(cudaErrorInvalidSymbol);
  synchronize_device();
  std::memmove(static_cast<char*>(const_cast<void*>(symbol)) + offset, src, n);
  return cudaSuccess;
}
FAKE_API cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t n, size_t offset, cudaMemcpyKind) {
  if (symbol == nullptr || dst == nullptr) return fail(cudaErrorInvalidSymbol);
  synchronize_device();
  std::memmove(dst, static_cast<const char*>(symbol) + offset, n);
  return cudaSuccess;
}
FAKE_API cudaError_t cudaMemset(void* p, int value, size_t n) {
  if (p == nullptr) return fail(cudaErrorInvalidValue);
  synchronize_device();
  std::memset(p, value, n);
  return cudaSuccess;
}
FAKE_API cudaError_t cudaMemsetAsync(void* p, int value, size_t n, cudaStream_t handle) {
  Stream* s = stream_from_handle(handle);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (p == nullptr) return fail(cudaErrorInvalidValue);
  submit(s, [p, value, n] { std::memset(p, value, n); });
  return cudaSuccess;
}

// ---------------------------------------------------------------- memory
FAKE_API cudaError_t cudaMalloc(void** p, size_t n) {
  sleep_ns(kMallocNs);
  *p = allocate(n, MemKind::kDevice);
  return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}
FAKE_API cudaError_t cudaFree(void* p) {
  if (p == nullptr) return cudaSuccess;
  synchronize_device();  // the real cudaFree synchronises the device
  return release(p, MemKind::kDevice) || release(p, MemKind::kManaged) ? cudaSuccess : fail(cudaErrorInvalidValue);
}
FAKE_API cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t handle) {
  if (stream_from_handle(handle) == nullptr) return fail(cudaErrorInvalidResourceHandle);
  *p = allocate(n, MemKind::kDevice);
  return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}
FAKE_API cudaError_t cudaFreeAsync(void* p, cudaStream_t handle) {
  Stream* s = stream_from_handle(handle);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (kind_of(p) != MemKind::kDevice) return fail(cudaErrorInvalidValue);
  submit(s, [p] { release(p, MemKind::kDevice); });
  return cudaSuccess;
}
FAKE_API cudaError_t cudaMallocManaged(void** p, size_t n, unsigned int) {
  *p = allocate(n, MemKind::kManaged);
  return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}
FAKE_API cudaError_t cudaMallocHost(void** p, size_t n) {
  sleep_ns(kMallocNs);
  *p = allocate(n, MemKind::kPinned);
  return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}
FAKE_API cudaError_t cudaHostAlloc(void** p, size_t n, unsigned int) { return cudaMallocHost(p, n); }
FAKE_API cudaError_t cudaFreeHost(void* p) {
  if (p == nullptr) return cudaSuccess;
  synchronize_device();
  return release(p, MemKind::kPinned) ? cudaSuccess : fail(cudaErrorInvalidValue);
}
FAKE_API cudaError_t cudaHostRegister(void* p, size_t n, unsigned int) {
  if (p == nullptr || n == 0) return fail(cudaErrorInvalidValue);
  return register_range(p, n) ? cudaSuccess : fail(cudaErrorHostMemoryAlreadyRegistered);
}
FAKE_API cudaError_t cudaHostUnregister(void* p) {
  return unregister_range(p) ? cudaSuccess : fail(cudaErrorHostMemoryNotRegistered);
}

// ---------------------------------------------------------------- launches
FAKE_API cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3, dim3, void** args, size_t, cudaStream_t s) {
  return launch(k, args, s);
}
FAKE_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3, dim3, void** args, size_t, cudaStream_t s) {
  return launch(k, args, s);
}
FAKE_API cudaError_t cudaLaunchKernel(const void* f, dim3, dim3, void** args, size_t, cudaStream_t s) {
  return launch(f, args, s);
}
FAKE_API cudaError_t cudaLaunchKernel_ptsz(const void* f, dim3, dim3, void** args, size_t, cudaStream_t s) {
  return launch(f, args, s);
}
FAKE_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* c, const void* f, void** args) {
  if (c == nullptr) return fail(cudaErrorInvalidValue);
  return launch(f, args, c->stream);
}
FAKE_API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* c, const void* f, void** args) {
  return cudaLaunchKernelExC(c, f, args);
}
FAKE_API cudaError_t cudaLaunchCooperativeKernel(const void* f, dim3, dim3, void** args, size_t, cudaStream_t s) {
  return launch(f, args, s);
}
FAKE_API cudaError_t cudaLaunchHostFunc(cudaStream_t handle, cudaHostFn_t fn, void* data) {
  Stream* s = stream_from_handle(handle);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (fn == nullptr) return fail(cudaErrorInvalidValue);
  submit(s, [fn, data] { fn(data); });
  return cudaSuccess;
}

// ---------------------------------------------------------------- streams and graphs
FAKE_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int flags) {
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
FAKE_API cudaError_t cudaStreamBeginCapture(cudaStream_t handle, cudaStreamCaptureMode) {
  Stream* s = stream_from_handle(handle);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (s->legacy) return fail(cudaErrorStreamCaptureUnsupported);
  if (s->capture != nullptr) return fail(cudaErrorIllegalState);
  s->capture = new Graph();
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamEndCapture(cudaStream_t handle, cudaGraph_t* graph) {
  Stream* s = stream_from_handle(handle);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (s->capture == nullptr) return fail(cudaErrorIllegalState);
  *graph = reinterpret_cast<cudaGraph_t>(s->capture);
  s->capture = nullptr;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaStreamIsCapturing(cudaStream_t handle, cudaStreamCaptureStatus* status) {
  Stream* s = stream_from_handle(handle);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  *status = s->capture ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
FAKE_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  if (graph == nullptr) return fail(cudaErrorInvalidValue);
  *exec = reinterpret_cast<cudaGraphExec_t>(new GraphExec{reinterpret_cast<Graph*>(graph)->work});
  return cudaSuccess;
}
FAKE_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long f) {
  return cudaGraphInstantiate(exec, graph, f);
}
FAKE_API cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t handle) {
  Stream* s = stream_from_handle(handle);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (exec == nullptr) return fail(cudaErrorInvalidValue);
  for (const auto& work : reinterpret_cast<GraphExec*>(exec)->work) submit(s, work);
  return cudaSuccess;
}
FAKE_API cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete reinterpret_cast<GraphExec*>(exec);
  return cudaSuccess;
}
FAKE_API cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete reinterpret_cast<Graph*>(graph);
  return cudaSuccess;
}
