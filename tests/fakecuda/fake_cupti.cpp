// A fake libcupti.so.13 for CI (docs/gpu-timeline.md, "Testing without a
// GPU"): the subset of the CUPTI Activity API the recorder uses, producing
// records with CUDA 13's layouts from what the fake runtime reports
// (fake_activity.h). Test scaffolding, never evidence about a real GPU.
//
// Switches: FAKECUPTI_TAKEN=1 makes cuptiSubscribe fail as when another tool
// (torch.profiler) holds CUPTI; FAKECUPTI_NO_TIMESTAMP_CALLBACK=1 refuses the
// timestamp callback, leaving CUPTI's default clock (CLOCK_REALTIME);
// FAKECUPTI_TAKEN_AFTER_FINALIZE=1 makes cuptiSubscribe fail once CUPTI has
// been finalized (another tool took it between windows);
// FAKECUPTI_LATE_RECORDS=1 keeps what is buffered through a flush made with
// every kind off and through a finalize, and hands it over in one buffer
// with the next attach's first records (the real CUPTI was seen to deliver
// some of a window's records, of work still running when its kinds went
// off, after the next attach).
//
// cuptiFinalize is modelled as the real one is documented: everything is
// forgotten, and the next CUPTI call attaches CUPTI again. A call other than
// cuptiSubscribe that does so is said on stderr ("attached CUPTI again"),
// since a client that detaches between windows means to stay detached. The
// fake runtime numbers its calls afresh after a finalize (the real CUPTI
// may), so a client's correlation ids must survive that.
#include <cupti.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>

#include "fake_activity.h"

#define FAKE_CUPTI extern "C" __attribute__((visibility("default")))

namespace {

struct CallbackName {
  uint32_t cbid;
  const char* name;
};
// Runtime calls the fake runtime reports, with their real callback ids, and
// a few it does not (so a client's filter has something to leave out).
constexpr CallbackName kRuntimeNames[] = {
    {CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020, "cudaMemcpy2D"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020, "cudaMemcpyToSymbol"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020, "cudaMemcpyFromSymbol"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020, "cudaMemcpy2DAsync"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, "cudaMemset"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, "cudaMemsetAsync"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, "cudaEventSynchronize"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, "cudaStreamWaitEvent"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch"},
};
constexpr CallbackName kDriverNames[] = {
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel"},
};

uint32_t runtime_cbid(const char* name) {
  for (const CallbackName& c : kRuntimeNames) {
    if (std::strcmp(c.name, name) == 0) return c.cbid;
  }
  return 0;
}

uint64_t clock_ns(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

struct State {
  std::mutex mutex;
  bool subscribed = false;
  bool finalized = false;  // until the next CUPTI call
  bool ever_finalized = false;
  CUpti_CallbackFunc callback = nullptr;
  void* callback_data = nullptr;
  bool runtime_domain = false, driver_domain = false;  // API callbacks on
  std::set<int> kinds;
  std::set<uint32_t> runtime_apis, driver_apis;  // enabled one by one
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  CUpti_TimestampCallbackFunc timestamp = nullptr;
  bool system_tids = false;
  uint8_t* buffer = nullptr;
  size_t size = 0, used = 0;
};
State* g_state = nullptr;
// A forked child starts with no subscriber and nothing enabled (its copy of
// the mutex may be held by a stream worker that does not exist there).
void forget_in_child() {
  g_state = new State();
  syncscopeFakeCudaSetActivitySink(nullptr);
}
State& state() {
  static bool once = [] {
    g_state = new State();  // never destroyed: records may arrive at exit
    pthread_atfork(nullptr, nullptr, forget_in_child);
    return true;
  }();
  (void)once;
  return *g_state;
}

// CUPTI's clock (the registered callback's, else CLOCK_REALTIME) minus
// CLOCK_MONOTONIC, measured from the closest of several paired reads (two
// reads preempted apart would move a record by the preemption, microseconds,
// which no real clock does); measured again only when the clock changes.
uint64_t measured_offset(CUpti_TimestampCallbackFunc callback) {
  uint64_t best = 0, best_window = ~0ull;
  for (int i = 0; i < 16; ++i) {
    uint64_t before = clock_ns(CLOCK_MONOTONIC);
    uint64_t other = callback != nullptr ? callback() : clock_ns(CLOCK_REALTIME);
    uint64_t after = clock_ns(CLOCK_MONOTONIC);
    if (after - before < best_window) {
      best_window = after - before;
      best = other - (before + (after - before) / 2);
    }
  }
  return best;
}

uint64_t cupti_clock_offset(State& s) {
  static std::mutex mutex;
  static CUpti_TimestampCallbackFunc measured_for = nullptr;
  static uint64_t offset = 0;
  static bool measured = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (!measured || measured_for != s.timestamp) {
    offset = measured_offset(s.timestamp);
    measured_for = s.timestamp;
    measured = true;
  }
  return offset;
}

size_t record_size(CUpti_ActivityKind kind) {
  size_t size = 0;
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      size = sizeof(CUpti_ActivityKernel10);
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      size = sizeof(CUpti_ActivityMemcpy6);
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      size = sizeof(CUpti_ActivityMemset4);
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      size = sizeof(CUpti_ActivitySynchronization2);
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      size = sizeof(CUpti_ActivityAPI);
      break;
    default:
      return 0;
  }
  return (size + 7) & ~size_t{7};
}

// Hands the current buffer back to the client (the calling thread).
void complete_buffer(State& s) {
  if (s.buffer == nullptr || s.complete == nullptr) return;
  uint8_t* buffer = s.buffer;
  size_t size = s.size, used = s.used;
  s.buffer = nullptr;
  s.size = s.used = 0;
  s.complete(nullptr, 0, buffer, size, used);
}

// Room for one record in the current buffer, asking the client for one.
void* reserve(State& s, CUpti_ActivityKind kind) {
  size_t need = record_size(kind);
  if (s.buffer != nullptr && s.used + need > s.size) complete_buffer(s);
  if (s.buffer == nullptr) {
    if (s.request == nullptr) return nullptr;
    size_t max_records = 0;
    s.request(&s.buffer, &s.size, &max_records);
    s.used = 0;
    if (s.buffer == nullptr || s.size < need) return nullptr;
  }
  void* at = s.buffer + s.used;
  std::memset(at, 0, need);
  s.used += need;
  return at;
}

uint32_t thread_id(const State& s) {
  return s.system_tids ? static_cast<uint32_t>(syscall(SYS_gettid)) : static_cast<uint32_t>(pthread_self());
}

void record_api(State& s, uint32_t cbid, uint32_t correlation, uint64_t start, uint64_t end, int result);

// The exit of a runtime call: its API record, then (outside the lock, since
// the client may call CUPTI from it) the subscriber's callback when the
// runtime domain is on.
void on_api(const char* name, uint32_t correlation, uint64_t start, uint64_t end, int result) {
  State& s = state();
  CUpti_CallbackFunc callback = nullptr;
  void* callback_data = nullptr;
  uint32_t cbid = runtime_cbid(name);
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    record_api(s, cbid, correlation, start, end, result);
    if (s.runtime_domain) callback = s.callback, callback_data = s.callback_data;
  }
  if (callback == nullptr) return;
  CUpti_CallbackData data{};
  data.callbackSite = CUPTI_API_EXIT;
  data.functionName = name;
  data.correlationId = correlation;
  callback(callback_data, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &data);
}

void record_api(State& s, uint32_t cbid, uint32_t correlation, uint64_t start, uint64_t end, int result) {
  bool wanted = s.kinds.count(CUPTI_ACTIVITY_KIND_RUNTIME) != 0 || s.runtime_apis.count(cbid) != 0;
  if (cbid == 0 || !wanted) return;
  auto* r = static_cast<CUpti_ActivityAPI*>(reserve(s, CUPTI_ACTIVITY_KIND_RUNTIME));
  if (r == nullptr) return;
  uint64_t offset = cupti_clock_offset(s);
  r->kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  r->cbid = cbid;
  r->start = start + offset;
  r->end = end + offset;
  r->processId = static_cast<uint32_t>(getpid());
  r->threadId = thread_id(s);
  r->correlationId = correlation;
  r->returnValue = static_cast<uint32_t>(result);
}

void on_gpu(const SyncscopeFakeGpuOp* op) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  uint64_t offset = cupti_clock_offset(s);
  uint64_t start = op->start_ns + offset, end = op->end_ns + offset;
  switch (op->kind) {
    case 1: {
      if (s.kinds.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == 0) return;
      auto* k = static_cast<CUpti_ActivityKernel10*>(reserve(s, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
      if (k == nullptr) return;
      k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
      k->start = start;
      k->end = end;
      k->completed = end;
      k->deviceId = 0;
      k->contextId = 1;
      k->streamId = op->stream_id;
      k->correlationId = op->correlation;
      k->graphId = op->graph_id;
      k->name = op->name;
      k->gridX = k->gridY = k->gridZ = 1;
      k->blockX = 32;
      k->blockY = k->blockZ = 1;
      break;
    }
    case 2: {
      if (s.kinds.count(CUPTI_ACTIVITY_KIND_MEMCPY) == 0) return;
      auto* m = static_cast<CUpti_ActivityMemcpy6*>(reserve(s, CUPTI_ACTIVITY_KIND_MEMCPY));
      if (m == nullptr) return;
      m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
      m->copyKind = static_cast<uint8_t>(op->copy_kind);
      m->srcKind = static_cast<uint8_t>(op->src_kind);
      m->dstKind = static_cast<uint8_t>(op->dst_kind);
      m->flags = op->async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
      m->bytes = op->bytes;
      m->start = start;
      m->end = end;
      m->contextId = 1;
      m->streamId = op->stream_id;
      m->correlationId = op->correlation;
      m->graphId = op->graph_id;
      break;
    }
    case 3: {
      if (s.kinds.count(CUPTI_ACTIVITY_KIND_MEMSET) == 0) return;
      auto* m = static_cast<CUpti_ActivityMemset4*>(reserve(s, CUPTI_ACTIVITY_KIND_MEMSET));
      if (m == nullptr) return;
      m->kind = CUPTI_ACTIVITY_KIND_MEMSET;
      m->bytes = op->bytes;
      m->start = start;
      m->end = end;
      m->contextId = 1;
      m->streamId = op->stream_id;
      m->correlationId = op->correlation;
      m->flags = op->async ? CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC : 0;
      m->memoryKind = static_cast<uint16_t>(op->src_kind);
      m->graphId = op->graph_id;
      break;
    }
    case 4: {
      if (s.kinds.count(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) == 0) return;
      auto* y = static_cast<CUpti_ActivitySynchronization2*>(reserve(s, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION));
      if (y == nullptr) return;
      y->kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
      y->type = static_cast<CUpti_ActivitySynchronizationType>(op->sync_type);
      y->start = start;
      y->end = end;
      y->correlationId = op->correlation;
      y->contextId = 1;
      y->streamId = op->stream_id != 0 ? op->stream_id : CUPTI_SYNCHRONIZATION_INVALID_VALUE;
      y->cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
      break;
    }
    default:
      break;
  }
}

const SyncscopeFakeActivitySink kSink{on_api, on_gpu};

void update_sink(State& s) {
  bool quiet = s.kinds.empty() && s.runtime_apis.empty() && !s.runtime_domain;
  syncscopeFakeCudaSetActivitySink(quiet ? nullptr : &kSink);
}

// Every CUPTI call but the few that only describe attaches CUPTI again
// after a finalize; the caller holds s.mutex.
void attach_again(State& s, const char* call) {
  if (!s.finalized) return;
  s.finalized = false;
  if (std::strcmp(call, "cuptiSubscribe") != 0) {
    std::fprintf(stderr, "fakecupti: %s attached CUPTI again after cuptiFinalize\n", call);
  }
}

State& attached(const char* call) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, call);
  return s;
}

}  // namespace

FAKE_CUPTI CUptiResult cuptiGetVersion(uint32_t* version) {
  if (version == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  const char* forced = std::getenv("FAKECUPTI_VERSION");
  *version = forced != nullptr ? static_cast<uint32_t>(std::strtoul(forced, nullptr, 10)) : CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiGetResultString(CUptiResult result, const char** text) {
  if (text == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  switch (result) {
    case CUPTI_SUCCESS:
      *text = "CUPTI_SUCCESS";
      break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      *text = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
      break;
    case CUPTI_ERROR_NOT_SUPPORTED:
      *text = "CUPTI_ERROR_NOT_SUPPORTED";
      break;
    default:
      *text = "CUPTI_ERROR_UNKNOWN";
      break;
  }
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void* data) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, "cuptiSubscribe");
  if (env_on("FAKECUPTI_TAKEN") || s.subscribed || (s.ever_finalized && env_on("FAKECUPTI_TAKEN_AFTER_FINALIZE"))) {
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  s.subscribed = true;
  s.callback = callback;
  s.callback_data = data;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&s);
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, "cuptiUnsubscribe");
  s.subscribed = false;
  s.callback = nullptr;
  s.runtime_domain = s.driver_domain = false;
  update_sink(s);
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, "cuptiEnableDomain");
  if (!s.subscribed || subscriber != reinterpret_cast<CUpti_SubscriberHandle>(&s)) return CUPTI_ERROR_INVALID_PARAMETER;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    s.runtime_domain = enable != 0;
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    s.driver_domain = enable != 0;  // the fake driver reports no calls: never called back
  } else {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  update_sink(s);
  return CUPTI_SUCCESS;
}

// Hands back what is buffered, then forgets everything, as the real one.
FAKE_CUPTI CUptiResult cuptiFinalize() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, "cuptiFinalize");
  if (!env_on("FAKECUPTI_LATE_RECORDS")) complete_buffer(s);
  s.subscribed = false;
  s.callback = nullptr;
  s.callback_data = nullptr;
  s.runtime_domain = s.driver_domain = false;
  s.kinds.clear();
  s.runtime_apis.clear();
  s.driver_apis.clear();
  s.request = nullptr;
  s.complete = nullptr;
  s.timestamp = nullptr;
  s.system_tids = false;
  s.finalized = s.ever_finalized = true;
  update_sink(s);
  syncscopeFakeCudaRestartCorrelation();
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char** name) {
  if (name == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    for (const CallbackName& c : kRuntimeNames) {
      if (c.cbid == cbid) return *name = c.name, CUPTI_SUCCESS;
    }
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    for (const CallbackName& c : kDriverNames) {
      if (c.cbid == cbid) return *name = c.name, CUPTI_SUCCESS;
    }
  }
  *name = "cudaSomethingElse";  // the real library names every id
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType type) {
  attached("cuptiSetThreadIdType").system_tids = type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM;
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc callback) {
  if (callback == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (env_on("FAKECUPTI_NO_TIMESTAMP_CALLBACK")) return CUPTI_ERROR_NOT_SUPPORTED;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, "cuptiActivityRegisterTimestampCallback");
  s.timestamp = callback;
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiGetTimestamp(uint64_t* timestamp) {
  if (timestamp == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, "cuptiGetTimestamp");
  *timestamp = clock_ns(CLOCK_MONOTONIC) + cupti_clock_offset(s);
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                      CUpti_BuffersCallbackCompleteFunc complete) {
  if (request == nullptr || complete == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, "cuptiActivityRegisterCallbacks");
  s.request = request;
  s.complete = complete;
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, "cuptiActivityEnable");
  if (record_size(kind) == 0) return CUPTI_ERROR_NOT_SUPPORTED;
  s.kinds.insert(kind);
  update_sink(s);
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, "cuptiActivityDisable");
  s.kinds.erase(kind);
  update_sink(s);
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, "cuptiActivityEnableRuntimeApi");
  if (enable) {
    s.runtime_apis.insert(cbid);
  } else {
    s.runtime_apis.erase(cbid);
  }
  update_sink(s);
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, "cuptiActivityEnableDriverApi");
  if (enable) {
    s.driver_apis.insert(cbid);
  } else {
    s.driver_apis.erase(cbid);
  }
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiActivityFlushAll(uint32_t) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  attach_again(s, "cuptiActivityFlushAll");
  if (s.kinds.empty() && env_on("FAKECUPTI_LATE_RECORDS")) return CUPTI_SUCCESS;
  complete_buffer(s);
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  if (buffer == nullptr || record == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  size_t at = 0;
  if (*record != nullptr) {
    size_t size = record_size((*record)->kind);
    if (size == 0) return CUPTI_ERROR_INVALID_KIND;
    at = static_cast<size_t>(reinterpret_cast<uint8_t*>(*record) - buffer) + size;
  }
  if (at + sizeof(CUpti_Activity) > valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  auto* next = reinterpret_cast<CUpti_Activity*>(buffer + at);
  if (record_size(next->kind) == 0 || at + record_size(next->kind) > valid) return CUPTI_ERROR_INVALID_KIND;
  *record = next;
  return CUPTI_SUCCESS;
}

FAKE_CUPTI CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  if (dropped == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *dropped = 0;
  return CUPTI_SUCCESS;
}
