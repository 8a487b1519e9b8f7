// Activity reporting of the fake runtime, for the fake libcupti.so.13
// (fake_cupti.cpp): the outermost fake runtime call on a thread that makes or
// waits for GPU work gets a correlation id and reports its span (the API
// record); the work reports its simulated start and end when it runs (the
// GPU record) with the same id — a graph's work with its launch's id.
// Nothing is reported until the fake CUPTI installs a sink.
#pragma once

#include <cstdint>
#include <functional>

extern "C" {
struct SyncscopeFakeGpuOp {
  int kind;           // 1 kernel, 2 memcpy, 3 memset, 4 sync (CUPTI's record kinds, simplified)
  uint64_t start_ns;  // CLOCK_MONOTONIC
  uint64_t end_ns;
  uint64_t bytes;
  uint32_t correlation;
  uint32_t stream_id;      // 1, 2, ... per simulated stream
  uint32_t graph_id;       // nonzero for work replayed from a graph
  const char* name;        // kernel: its device name (lives as long as the program)
  int copy_kind;           // memcpy: CUpti_ActivityMemcpyKind
  int src_kind, dst_kind;  // memcpy: CUpti_ActivityMemoryKind; memset: src_kind
  int async;
  int sync_type;  // sync: CUpti_ActivitySynchronizationType
};
struct SyncscopeFakeActivitySink {
  // name: the runtime function ("cudaMemcpyAsync"); times CLOCK_MONOTONIC.
  void (*api)(const char* name, uint32_t correlation, uint64_t start_ns, uint64_t end_ns, int result);
  void (*gpu)(const SyncscopeFakeGpuOp* op);
};
// nullptr stops reporting.
__attribute__((visibility("default"))) void syncscopeFakeCudaSetActivitySink(const SyncscopeFakeActivitySink* sink);
// Calls are numbered from 1 again (the fake CUPTI's finalize).
__attribute__((visibility("default"))) void syncscopeFakeCudaRestartCorrelation();
}

namespace fakecuda {

class Stream;

bool activity_on();

// Brackets a fake runtime call. Only the outermost scope of a thread counts.
class ApiScope {
 public:
  explicit ApiScope(const char* name);
  ~ApiScope();
  ApiScope(const ApiScope&) = delete;
  ApiScope& operator=(const ApiScope&) = delete;
  void set_result(int result) { result_ = result; }

 private:
  const char* name_;
  uint64_t start_ = 0;
  uint32_t correlation_ = 0;
  int result_ = 0;
  bool outer_ = false;
};

// The correlation id of the current call (0 outside one, or when off).
uint32_t current_correlation();
uint32_t stream_id(Stream* stream);
// An op template for work on `stream` in the current call.
SyncscopeFakeGpuOp gpu_op(int kind, Stream* stream);
void report_gpu(const SyncscopeFakeGpuOp& op);
// A Work action that runs `action` and then reports `op` with the simulated
// start and start + duration (a graph replay's correlation when replaying).
std::function<void(uint64_t)> reporting(std::function<void(uint64_t)> action, SyncscopeFakeGpuOp op,
                                        uint64_t duration_ns);
// Wraps a graph's work so that what it reports carries the launch's id.
std::function<void(uint64_t)> replayed(std::function<void(uint64_t)> action, uint32_t correlation);
// CUpti_ActivityMemoryKind of host or device memory at ptr.
int memory_kind(const void* ptr);

}  // namespace fakecuda
