// CallRecord: builds the Event of one hooked call. The table's `describe`
// column calls one of its describing methods with the call's arguments
// before the real function runs; begin() and end() bracket the real call.
// Everything is inline and allocation-free: for a launch this is the whole
// added cost of the hook.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>

#include "preload/recording/capture_tracker.h"
#include "preload/core/clock.h"
#include "preload/core/config.h"
#include "preload/recording/host_memory.h"
#include "preload/recording/pinned_map.h"
#include "preload/python/python_frames.h"
#include "preload/recording/stack_capture.h"
#include "preload/recording/stack_table.h"
#include "preload/recording/thread_state.h"
#include "trace/api.h"
#include "trace/event.h"
#include "trace/format.h"

namespace syncscope::preload {

// kPythonOnly: the Python frames without the native ones, for calls whose
// native stack is always the same way in (the step markers: ctypes, then
// the marker), where unwinding it would cost a few µs a step for nothing.
enum class StackPolicy { kStack, kNoStack, kPythonOnly };
inline constexpr StackPolicy kStack = StackPolicy::kStack;
inline constexpr StackPolicy kNoStack = StackPolicy::kNoStack;
inline constexpr StackPolicy kPythonOnly = StackPolicy::kPythonOnly;

class CallRecord {
 public:
  CallRecord(ApiId api, StackPolicy policy)
      : want_stack_(policy != StackPolicy::kNoStack), want_native_(policy == StackPolicy::kStack) {
    event_.api = static_cast<uint16_t>(api);
    event_.device = -1;
  }

  // ---- describing the call (before it runs) ----
  void sync_device() {}
  void sync_stream(cudaStream_t s) { on_stream(s); }
  void sync_stream_ptsz(cudaStream_t s) {
    on_stream(s);
    event_.flags |= kFlagPerThreadStream;
  }
  void sync_event(cudaEvent_t e) { on_event(e); }
  void on_stream(cudaStream_t s) { set_stream(s); }
  void on_event(cudaEvent_t e) { event_.dst = handle(e); }
  void stream_wait(cudaStream_t s, cudaEvent_t e) {
    set_stream(s);
    event_.src = handle(e);
  }
  void event_record(cudaEvent_t e, cudaStream_t s) {
    set_stream(s);
    event_.dst = handle(e);
  }

  void copy(const void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s, bool async) {
    set_stream(s);
    event_.dst = handle(dst);
    event_.src = handle(src);
    event_.bytes = bytes;
    if (async) event_.flags |= kFlagAsync;
    classify_copy(dst, src, kind);
    // Device-to-device async copies are routine and frequent: no stack.
    if (async && event_.direction == static_cast<uint8_t>(Direction::kDeviceToDevice)) want_stack_ = false;
  }
  void copy_ptsz(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s) {
    copy(dst, src, bytes, kind, s, true);
    event_.flags |= kFlagPerThreadStream;
  }
  void memset(const void* ptr, size_t bytes, cudaStream_t s, bool async) {
    set_stream(s);
    event_.dst = handle(ptr);
    event_.bytes = bytes;
    if (async) event_.flags |= kFlagAsync;
  }

  void alloc(void** out, size_t bytes, cudaStream_t s) {
    set_stream(s);
    event_.bytes = bytes;
    out_ptr_ = out;
    if (s != nullptr) event_.flags |= kFlagAsync;
  }
  void free(const void* ptr, cudaStream_t s) {
    set_stream(s);
    event_.dst = handle(ptr);
    if (s != nullptr) event_.flags |= kFlagAsync;
  }
  // Stream-ordered allocations are asynchronous on every stream, the legacy
  // default stream (nullptr, where PyTorch's default stream lives) included.
  void alloc_async(void** out, size_t bytes, cudaStream_t s) {
    alloc(out, bytes, s);
    event_.flags |= kFlagAsync;
  }
  void free_async(const void* ptr, cudaStream_t s) {
    free(ptr, s);
    event_.flags |= kFlagAsync;
  }
  // Driver virtual-memory calls: the address (or handle) and the size.
  void vmm(uint64_t what, size_t bytes) {
    event_.dst = what;
    event_.bytes = bytes;
  }
  // The call works on the calling thread's default stream (_ptsz/_ptds).
  void per_thread() { event_.flags |= kFlagPerThreadStream; }
  void host_alloc(void** out, size_t bytes) {
    event_.bytes = bytes;
    out_ptr_ = out;
    after_ = After::kPin;
  }
  void host_free(const void* ptr) {
    event_.dst = handle(ptr);
    after_ = After::kUnpin;
  }
  void host_register(const void* ptr, size_t bytes) {
    event_.dst = handle(ptr);
    event_.bytes = bytes;
    after_ = After::kPin;
  }
  void host_unregister(const void* ptr) { host_free(ptr); }

  void launch(const void* what, cudaStream_t s) {
    set_stream(s);
    event_.dst = handle(what);
    event_.flags |= kFlagAsync;
  }
  void launch_ptsz(const void* what, cudaStream_t s) {
    launch(what, s);
    event_.flags |= kFlagPerThreadStream;
  }
  template <typename Handle>
  void launch(Handle what, cudaStream_t s) {
    launch(reinterpret_cast<const void*>(what), s);
  }
  template <typename Handle>
  void launch_ptsz(Handle what, cudaStream_t s) {
    launch_ptsz(reinterpret_cast<const void*>(what), s);
  }

  void stream_create(cudaStream_t* out, unsigned int flags, int /*priority*/) {
    event_.bytes = flags;
    out_stream_ = out;
  }
  void capture_begin(cudaStream_t s) {
    set_stream(s);
    after_ = After::kCaptureBegin;
  }
  void capture_end(cudaStream_t s) {
    set_stream(s);
    after_ = After::kCaptureEnd;
  }

  // ---- bracketing the real call ----
  void begin(ThreadState* thread) {
    if (want_stack_ && config().stacks) {
      const uint64_t began = now_ticks();
      uint64_t python[kMaxPythonDepth];
      depth_ = want_native_ ? capture_stack(pcs_, kMaxStackDepth) : 0;
      python_depth_ = config().python ? capture_python_stack(python, kMaxPythonDepth, &defer_python_) : 0;
      event_.stack_id = stack_table().intern(pcs_, depth_, python, python_depth_);
      event_.start_ns = now_ticks();
      thread->add_capture(event_.start_ns - began);  // the recorder's own cost, reported at the end
      return;
    }
    event_.start_ns = now_ticks();
  }

  // `result`: a cudaError_t or a CUresult; 0 is success in both.
  void end(ThreadState* thread, int result) {
    event_.end_ns = now_ticks();
    event_.tid = thread->tid;
    if (result != 0) {
      event_.flags |= kFlagError;
      event_.result = static_cast<int16_t>(result > 32767 ? 32767 : result);
    } else {
      apply_result();
    }
    if (after_ == After::kCaptureEnd) capture_ended(event_.stream);  // ends even on failure
    if (event_.stack_id != 0 && python_depth_ == 0) note_frameless_call(thread->tid, event_.end_ns);
    if (defer_python_) {
      // Python frames once the thread takes the GIL back (python/python_resume.cpp);
      // the native-only stack id stays as the fallback.
      route_gil_reacquire_here();
      if (config().aggregate_launches) {
        // Its place among the thread's launches, which the collector may
        // fold into runs (preload/recording/launch_aggregator.h): no run may span it.
        Event mark{};
        mark.start_ns = event_.start_ns;
        mark.end_ns = event_.end_ns;
        mark.tid = thread->tid;
        mark.api = static_cast<uint16_t>(ApiId::syncscope_order_mark);
        thread->ring.push(mark);
      }
      if (thread->pending_count == ThreadState::kMaxPending) flush_pending_native(thread);
      thread->pending[thread->pending_count++] = event_;
      return;
    }
    thread->ring.push(event_);
  }

 private:
  enum class After : uint8_t { kNone, kPin, kUnpin, kCaptureBegin, kCaptureEnd };

  template <typename T>
  static uint64_t handle(T* p) {
    return reinterpret_cast<uint64_t>(p);
  }

  void set_stream(cudaStream_t s) {
    event_.stream = handle(s);
    if (stream_is_capturing(event_.stream)) event_.flags |= kFlagCapturing;
  }

  void classify_copy(const void* dst, const void* src, cudaMemcpyKind kind) {
    Direction direction = Direction::kUnknown;
    MemoryKind host = MemoryKind::kUnknown;
    const bool query = (event_.flags & kFlagCapturing) == 0;
    switch (kind) {
      case cudaMemcpyHostToHost:
        direction = Direction::kHostToHost;
        break;
      case cudaMemcpyHostToDevice:
        direction = Direction::kHostToDevice;
        host = classify_pointer(src, query);
        break;
      case cudaMemcpyDeviceToHost:
        direction = Direction::kDeviceToHost;
        host = classify_pointer(dst, query);
        break;
      case cudaMemcpyDeviceToDevice:
        direction = Direction::kDeviceToDevice;
        break;
      case cudaMemcpyDefault: {
        MemoryKind d = classify_pointer(dst, query);
        MemoryKind s = classify_pointer(src, query);
        bool d_dev = d == MemoryKind::kDevice || d == MemoryKind::kManaged;
        bool s_dev = s == MemoryKind::kDevice || s == MemoryKind::kManaged;
        if (d == MemoryKind::kUnknown || s == MemoryKind::kUnknown)
          direction = Direction::kUnknown;
        else if (s_dev && d_dev)
          direction = Direction::kDeviceToDevice;
        else if (s_dev)
          direction = Direction::kDeviceToHost, host = d;
        else if (d_dev)
          direction = Direction::kHostToDevice, host = s;
        else
          direction = Direction::kHostToHost;
        break;
      }
    }
    event_.direction = static_cast<uint8_t>(direction);
    if (direction == Direction::kHostToDevice || direction == Direction::kDeviceToHost) {
      event_.host_mem = static_cast<uint8_t>(host_mem_of(host));
    }
  }

  void apply_result() {
    if (out_ptr_ != nullptr) event_.dst = handle(*out_ptr_);
    if (out_stream_ != nullptr) event_.stream = handle(*out_stream_);
    switch (after_) {
      case After::kPin:
        pinned_map().add(event_.dst, event_.bytes);
        break;
      case After::kUnpin:
        pinned_map().remove(event_.dst);
        break;
      case After::kCaptureBegin:
        capture_started(event_.stream);
        break;
      case After::kNone:
      case After::kCaptureEnd:
        break;
    }
  }

  Event event_{};
  bool want_stack_;
  bool want_native_;
  bool defer_python_ = false;
  uint32_t depth_ = 0;
  uint32_t python_depth_ = 0;
  uint64_t pcs_[kMaxStackDepth];
  After after_ = After::kNone;
  void** out_ptr_ = nullptr;
  cudaStream_t* out_stream_ = nullptr;
};

}  // namespace syncscope::preload
