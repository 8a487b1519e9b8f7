// The CUPTI adapter of the GPU timeline (docs/gpu-timeline.md). CUPTI's
// functions are looked up in the dlopen'ed library; its record layouts come
// from the CUDA 13 headers (checked against cuptiGetVersion). Nothing here
// is reached from a hooked call: start runs when a trace is opened, the
// buffer callbacks on CUPTI's thread (or the flushing one), drain and stop
// on the collector thread.
#include "preload/gpu_timeline/cupti_timeline.h"

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "preload/core/clock.h"
#include "preload/core/config.h"
#include "preload/core/in_hook.h"
#include "preload/core/log.h"
#include "preload/core/real_function.h"
#include "trace/environment.h"
#include "trace/gpu_record.h"
#include "trace/process_info_keys.h"
#include "trace/writer.h"

namespace syncscope::preload {
namespace {

constexpr size_t kBufferBytes = 4u << 20;
constexpr size_t kMaxPendingRecords = 4u << 20;      // beyond: counted, not kept
constexpr uint64_t kPeriodicFlushNs = 500000000ull;  // ask CUPTI for its records every 0.5 s

// The CUPTI functions used, resolved by name.
struct CuptiApi {
  decltype(&cuptiGetVersion) get_version = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiUnsubscribe) unsubscribe = nullptr;
  decltype(&cuptiGetCallbackName) callback_name = nullptr;
  decltype(&cuptiSetThreadIdType) set_thread_id_type = nullptr;
  decltype(&cuptiActivityRegisterTimestampCallback) register_timestamp = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityEnableRuntimeApi) enable_runtime_api = nullptr;
  decltype(&cuptiActivityEnableDriverApi) enable_driver_api = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) dropped_records = nullptr;
  decltype(&cuptiGetTimestamp) get_timestamp = nullptr;
  decltype(&cuptiEnableDomain) enable_domain = nullptr;
  decltype(&cuptiFinalize) finalize = nullptr;
};

// Control state: start/stop/periodic flush, under g_control.
struct Control {
  std::mutex mutex;
  void* library = nullptr;
  std::string library_path;
  CuptiApi api;
  bool active = false;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<CUpti_ActivityKind> enabled;
  std::vector<std::pair<CUpti_CallbackDomain, uint32_t>> enabled_apis;  // per-cbid enabling, to undo
  uint64_t last_flush_ns = 0;
  bool at_exit_registered = false;
  // Sampling (docs/gpu-timeline.md, "Sampling"): every kind above is on for
  // a window of window_ns every period_ns (0: always). Toggled by the
  // collector's drain, never in a hooked call.
  uint64_t window_ns = 0, period_ns = 0;
  bool recording = false;         // the kinds are enabled now
  uint64_t next_open_ns = 0;      // the next window's scheduled opening
  uint64_t window_open_ns = 0;    // when the open window's kinds came on
  uint64_t window_close_ns = 0;   // when it is due to close
  // Detaching between windows ("Sampling"): CUPTI, once its kinds have been
  // on, keeps launches dearer with every kind off, until cuptiFinalize.
  bool detach_between_windows = false;
  bool detaching = false;  // asked for; the next CUDA call's exit finalizes
  bool detached = false;   // finalized: no CUPTI call until the next window (any would attach it again)
  bool system_tids = false, timestamp_callback = false;  // as at start, for each attach after
};

// The detach handshake between the collector (asks, and settles) and the
// CUDA call whose exit callback finalizes CUPTI (CUPTI's rule: cuptiFinalize
// only at the exit of a CUDA call, or with nothing in flight).
enum DetachState : int { kAttached, kDetachAsked, kFinalizing, kFinalized };
std::atomic<int> g_detach{kAttached};

// The stretch at each end of a window left out of the window recorded: work
// queued before the kinds came on may still be running after, and work
// queued just before they go off may finish after (its record may be lost).
constexpr uint64_t kWindowMarginNs = 100000000ull;

// What the buffer callbacks hand to the collector, under its own mutex
// (CUPTI may call back on its thread while the collector holds g_control).
struct Pending {
  std::mutex mutex;
  std::vector<GpuRecord> records;
  std::vector<std::pair<uint32_t, std::string>> new_strings;
  std::vector<std::pair<std::string, std::string>> notes;
  std::unordered_map<std::string, uint32_t> names;  // kernel name -> string id, per trace file
  uint64_t dropped_here = 0;                        // pending list full
  uint64_t dropped_cupti = 0;                       // CUPTI's own count
  // CUPTI numbers its calls from 1 again after each detach (seen on an
  // H100), and may hand over some of an attach's records only after the
  // next attach; the trace's correlation ids must stay unique and in issue
  // order across windows. So each attach is an epoch, from the time it
  // began, whose ids are moved past every id recorded before it; a record
  // belongs to the epoch its start time falls in (epoch_of).
  struct Epoch {
    uint64_t since_ns = 0;  // trace clock
    uint32_t base = 0;
    bool base_set = false;  // set from the first buffer holding a record of the epoch
  };
  std::vector<Epoch> epochs{Epoch{0, 0, true}};
  uint32_t max_correlation = 0;
};

// Read by the buffer callbacks without a lock: set before kinds are enabled.
struct Filter {
  bool runtime = false, driver = false;  // whole kinds enabled: keep only these cbids
  std::unordered_set<uint32_t> runtime_keep, driver_keep;
};

alignas(Control) unsigned char g_control_storage[sizeof(Control)];
alignas(Pending) unsigned char g_pending_storage[sizeof(Pending)];
Control* g_control = new (g_control_storage) Control();  // never destroyed: used at exit
Pending* g_pending = new (g_pending_storage) Pending();
Filter g_filter;
std::atomic<bool> g_timestamp_callback{false};  // CUPTI's clock is ours; else subtract the offset
std::atomic<int64_t> g_offset_ns{0};            // CUPTI timestamp - CLOCK_MONOTONIC
bool g_forked_child = false;

const char* result_text(const CuptiApi& api, CUptiResult result) {
  const char* text = nullptr;
  if (api.result_string != nullptr && api.result_string(result, &text) == CUPTI_SUCCESS && text != nullptr) {
    return text;
  }
  return "CUPTI error";
}

void note(std::string key, std::string value) {
  std::lock_guard<std::mutex> lock(g_pending->mutex);
  g_pending->notes.emplace_back(std::move(key), std::move(value));
}

void turn_off(const std::string& why, bool warn) {
  note(info_key::kGpuTimeline, "off: " + why);
  if (warn) {
    log_warning("GPU timeline off: %s; recording host calls only", why.c_str());
  } else {
    log_debug("GPU timeline off: %s", why.c_str());
  }
}

uint64_t CUPTIAPI trace_clock_now() { return monotonic_ns(); }

// CUPTI's clock minus ours: the tightest of a few bracketed samples.
void calibrate_offset(const CuptiApi& api) {
  if (g_timestamp_callback.load(std::memory_order_relaxed) || api.get_timestamp == nullptr) return;
  uint64_t best_window = ~0ull;
  int64_t best = 0;
  for (int i = 0; i < 5; ++i) {
    uint64_t before = monotonic_ns();
    uint64_t cupti = 0;
    if (api.get_timestamp(&cupti) != CUPTI_SUCCESS) return;
    uint64_t after = monotonic_ns();
    if (after - before < best_window) {
      best_window = after - before;
      best = static_cast<int64_t>(cupti) - static_cast<int64_t>(before + (after - before) / 2);
    }
  }
  g_offset_ns.store(best, std::memory_order_relaxed);
}

uint64_t to_trace_clock(uint64_t cupti_ns) {
  if (cupti_ns == 0 || g_timestamp_callback.load(std::memory_order_relaxed)) return cupti_ns;
  return static_cast<uint64_t>(static_cast<int64_t>(cupti_ns) - g_offset_ns.load(std::memory_order_relaxed));
}

int8_t device_of(uint32_t id) { return id <= 127 ? static_cast<int8_t>(id) : int8_t{-1}; }

// ---- buffer callbacks

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

uint32_t intern_name(Pending& p, const char* name) {
  if (name == nullptr) return 0;
  auto [it, inserted] = p.names.emplace(name, static_cast<uint32_t>(p.names.size() + 1));
  if (inserted) p.new_strings.emplace_back(it->second, it->first);
  return it->second;
}

// The fields every record of GPU work has (kernel, memcpy, memset), whose
// CUPTI structs differ in layout but not in these names.
template <typename Work>
void copy_work_fields(const Work* w, GpuRecord* r) {
  r->start_ns = w->start;
  r->end_ns = w->end;
  r->correlation_id = w->correlationId;
  r->stream_id = w->streamId;
  r->context_id = w->contextId;
  r->graph_id = w->graphId;
  r->device = device_of(w->deviceId);
}

// One CUPTI record as a GpuRecord; false for kinds (or calls) not kept.
bool convert(const CUpti_Activity* activity, Pending& p, GpuRecord* out) {
  GpuRecord r{};
  r.device = -1;
  switch (activity->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(activity);
      r.kind = static_cast<uint8_t>(GpuKind::kKernel);
      copy_work_fields(k, &r);
      r.name_id = intern_name(p, k->name);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(activity);
      r.kind = static_cast<uint8_t>(GpuKind::kMemcpy);
      copy_work_fields(m, &r);
      r.bytes = m->bytes;
      r.copy_kind = m->copyKind;
      r.src_kind = m->srcKind;
      r.dst_kind = m->dstKind;
      if (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) r.flags |= kGpuFlagAsync;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(activity);
      r.kind = static_cast<uint8_t>(GpuKind::kMemset);
      copy_work_fields(m, &r);
      r.bytes = m->bytes;
      r.src_kind = static_cast<uint8_t>(m->memoryKind);
      if (m->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) r.flags |= kGpuFlagAsync;
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(activity);
      r.kind = static_cast<uint8_t>(GpuKind::kSync);
      r.start_ns = s->start;
      r.end_ns = s->end;
      r.correlation_id = s->correlationId;
      r.stream_id = s->streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : s->streamId;
      r.context_id = s->contextId;
      r.name_id = static_cast<uint32_t>(s->type);
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(activity);
      bool runtime = activity->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
      if (runtime && g_filter.runtime && g_filter.runtime_keep.count(a->cbid) == 0) return false;
      if (!runtime && g_filter.driver && g_filter.driver_keep.count(a->cbid) == 0) return false;
      r.kind = static_cast<uint8_t>(runtime ? GpuKind::kRuntimeApi : GpuKind::kDriverApi);
      r.start_ns = a->start;
      r.end_ns = a->end;
      r.correlation_id = a->correlationId;
      r.name_id = a->cbid;
      r.tid = a->threadId;
      r.result = a->returnValue;
      break;
    }
    default:
      return false;
  }
  r.start_ns = to_trace_clock(r.start_ns);
  r.end_ns = to_trace_clock(r.end_ns);
  *out = r;
  return true;
}

// The epoch whose attach a record (its start on the trace clock) follows:
// nearly always the last or the one before, so searched from the end.
Pending::Epoch& epoch_of(Pending& p, uint64_t start_ns) {
  for (size_t i = p.epochs.size(); i-- > 1;) {
    if (start_ns >= p.epochs[i].since_ns) return p.epochs[i];
  }
  return p.epochs.front();
}

// An epoch's lowest id (in the first buffer that holds any of its records)
// lands well past the last id recorded; the gap leaves room for lower ids
// of the same epoch in later buffers (other streams, other threads).
constexpr uint32_t kCorrelationGap = 1u << 16;

void set_epoch_bases(const CuptiApi& api, uint8_t* buffer, size_t valid, Pending& p) {
  if (p.epochs.back().base_set) return;
  struct Span {
    uint32_t lowest = 0, highest = 0;
  };
  std::vector<Span> spans(p.epochs.size());
  CUpti_Activity* activity = nullptr;
  while (api.next_record(buffer, valid, &activity) == CUPTI_SUCCESS) {
    GpuRecord r;
    if (!convert(activity, p, &r) || r.correlation_id == 0) continue;
    Span& span = spans[static_cast<size_t>(&epoch_of(p, r.start_ns) - p.epochs.data())];
    if (span.lowest == 0 || r.correlation_id < span.lowest) span.lowest = r.correlation_id;
    span.highest = std::max(span.highest, r.correlation_id);
  }
  // In epoch order, each past the ids of the ones before it (in this
  // buffer too: one buffer may hold several attaches' records).
  uint32_t past = p.max_correlation;
  for (size_t e = 0; e < p.epochs.size(); ++e) {
    Pending::Epoch& epoch = p.epochs[e];
    if (spans[e].lowest == 0) continue;
    if (!epoch.base_set) {
      // Unsigned arithmetic: the base "wraps" where CUPTI's ids did not restart.
      epoch.base = past + kCorrelationGap - spans[e].lowest;
      epoch.base_set = true;
      log_debug("GPU timeline: attach %zu: CUPTI's correlation id %u becomes %u", e, spans[e].lowest,
                spans[e].lowest + epoch.base);
    }
    past = std::max(past, spans[e].highest + epoch.base);
  }
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  const CuptiApi& api = g_control->api;  // set before callbacks were registered, never changed after
  if (buffer == nullptr) return;
  if (valid > 0 && api.next_record != nullptr && !g_forked_child) {  // a child's records are not its own
    std::lock_guard<std::mutex> lock(g_pending->mutex);
    Pending& p = *g_pending;
    set_epoch_bases(api, buffer, valid, p);
    CUpti_Activity* activity = nullptr;
    while (api.next_record(buffer, valid, &activity) == CUPTI_SUCCESS) {
      GpuRecord r;
      if (!convert(activity, p, &r)) continue;
      if (r.correlation_id != 0) {
        r.correlation_id += epoch_of(p, r.start_ns).base;
        p.max_correlation = std::max(p.max_correlation, r.correlation_id);
      }
      if (p.records.size() >= kMaxPendingRecords) {
        ++p.dropped_here;
        continue;
      }
      p.records.push_back(r);
    }
    size_t dropped = 0;
    if (api.dropped_records != nullptr && api.dropped_records(context, stream_id, &dropped) == CUPTI_SUCCESS) {
      p.dropped_cupti += dropped;
    }
  }
  std::free(buffer);
}

// ---- start

template <typename T>
bool resolve(void* library, const char* name, T* out) {
  // glibc's dlsym, not the preload's own hook (preload/core/real_function.h).
  *out = reinterpret_cast<T>(real_dlsym()(library, name));
  return *out != nullptr;
}

bool resolve_all(Control& c, std::string* missing) {
  CuptiApi& a = c.api;
  void* l = c.library;
  struct Required {
    const char* name;
    bool ok;
  } required[] = {
      {"cuptiGetVersion", resolve(l, "cuptiGetVersion", &a.get_version)},
      {"cuptiSubscribe", resolve(l, "cuptiSubscribe", &a.subscribe)},
      {"cuptiUnsubscribe", resolve(l, "cuptiUnsubscribe", &a.unsubscribe)},
      {"cuptiActivityRegisterCallbacks", resolve(l, "cuptiActivityRegisterCallbacks", &a.register_callbacks)},
      {"cuptiActivityEnable", resolve(l, "cuptiActivityEnable", &a.enable)},
      {"cuptiActivityDisable", resolve(l, "cuptiActivityDisable", &a.disable)},
      {"cuptiActivityFlushAll", resolve(l, "cuptiActivityFlushAll", &a.flush_all)},
      {"cuptiActivityGetNextRecord", resolve(l, "cuptiActivityGetNextRecord", &a.next_record)},
  };
  // Optional: each has a fallback.
  resolve(l, "cuptiGetResultString", &a.result_string);
  resolve(l, "cuptiGetCallbackName", &a.callback_name);
  resolve(l, "cuptiSetThreadIdType", &a.set_thread_id_type);
  resolve(l, "cuptiActivityRegisterTimestampCallback", &a.register_timestamp);
  resolve(l, "cuptiActivityEnableRuntimeApi", &a.enable_runtime_api);
  resolve(l, "cuptiActivityEnableDriverApi", &a.enable_driver_api);
  resolve(l, "cuptiActivityGetNumDroppedRecords", &a.dropped_records);
  resolve(l, "cuptiGetTimestamp", &a.get_timestamp);
  resolve(l, "cuptiEnableDomain", &a.enable_domain);
  resolve(l, "cuptiFinalize", &a.finalize);
  for (const Required& r : required) {
    if (!r.ok) {
      *missing = r.name;
      return false;
    }
  }
  return true;
}

// Called by CUPTI only while a detach is asked for (the API domains are on
// then): the first CUDA call to return finalizes CUPTI, on its own thread.
void CUPTIAPI on_api_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (data == nullptr || static_cast<const CUpti_CallbackData*>(data)->callbackSite != CUPTI_API_EXIT) return;
  int expected = kDetachAsked;
  if (!g_detach.compare_exchange_strong(expected, kFinalizing, std::memory_order_acq_rel)) return;
  InHookScope quiet;  // CUPTI's own CUDA calls while it tears down are not the program's
  g_control->api.finalize();  // resolved before any subscription, never changed after
  g_detach.store(kFinalized, std::memory_order_release);
}

// The calls that make GPU work or wait for it: their API records are the join.
bool keep_call(const char* name, bool runtime) {
  static const char* const kRuntime[] = {"cudaLaunch",
                                         "__cudaLaunch",
                                         "cudaMemcpy",
                                         "cudaMemset",
                                         "cudaGraphLaunch",
                                         "cudaStreamSynchronize",
                                         "cudaDeviceSynchronize",
                                         "cudaEventSynchronize",
                                         "cudaStreamWaitEvent",
                                         "cudaFree"};
  static const char* const kDriver[] = {
      "cuLaunch",         "cuMemcpy",           "cuMemset",          "cuGraphLaunch", "cuStreamSynchronize",
      "cuCtxSynchronize", "cuEventSynchronize", "cuStreamWaitEvent", "cuMemFree"};
  if (name == nullptr) return false;
  if (runtime) {
    for (const char* prefix : kRuntime) {
      if (std::strncmp(name, prefix, std::strlen(prefix)) == 0) return true;
    }
  } else {
    for (const char* prefix : kDriver) {
      if (std::strncmp(name, prefix, std::strlen(prefix)) == 0) return true;
    }
  }
  return false;
}

// API records for the kept calls only where CUPTI allows it per call; else
// the whole kind, filtered when buffers complete. Returns a note.
std::string enable_api_records(Control& c, bool runtime) {
  CUpti_CallbackDomain domain = runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  uint32_t size = runtime ? uint32_t{CUPTI_RUNTIME_TRACE_CBID_SIZE} : uint32_t{CUPTI_DRIVER_TRACE_CBID_SIZE};
  std::unordered_set<uint32_t>& keep = runtime ? g_filter.runtime_keep : g_filter.driver_keep;
  keep.clear();
  if (c.api.callback_name != nullptr) {
    for (uint32_t cbid = 1; cbid < size; ++cbid) {
      const char* name = nullptr;
      if (c.api.callback_name(domain, cbid, &name) == CUPTI_SUCCESS && keep_call(name, runtime)) keep.insert(cbid);
    }
  }
  if (config().gpu_api_records == Config::ApiRecords::kOff) return "off (joined by issue order)";
  if (config().gpu_api_records == Config::ApiRecords::kAll) keep.clear();
  auto per_call = runtime ? c.api.enable_runtime_api : c.api.enable_driver_api;
  if (per_call != nullptr && !keep.empty()) {
    size_t enabled = 0;
    for (uint32_t cbid : keep) {
      if (per_call(cbid, 1) == CUPTI_SUCCESS) {
        c.enabled_apis.emplace_back(domain, cbid);
        ++enabled;
      }
    }
    if (enabled == keep.size()) return std::to_string(enabled) + " calls";
    for (auto it = c.enabled_apis.begin(); it != c.enabled_apis.end();) {  // undo, then the whole kind
      if (it->first == domain) {
        per_call(it->second, 0);
        it = c.enabled_apis.erase(it);
      } else {
        ++it;
      }
    }
  }
  CUpti_ActivityKind kind = runtime ? CUPTI_ACTIVITY_KIND_RUNTIME : CUPTI_ACTIVITY_KIND_DRIVER;
  (runtime ? g_filter.runtime : g_filter.driver) = !keep.empty();
  CUptiResult result = c.api.enable(kind);
  if (result != CUPTI_SUCCESS) return std::string("not enabled: ") + result_text(c.api, result);
  c.enabled.push_back(kind);
  return keep.empty() ? "all calls" : "all calls, " + std::to_string(keep.size()) + " kept";
}

// Every kind and per-call API record on or off; the lists stay as they are.
void set_recording(Control& c, bool on) {
  for (CUpti_ActivityKind kind : c.enabled) on ? c.api.enable(kind) : c.api.disable(kind);
  for (const auto& [domain, cbid] : c.enabled_apis) {
    auto per_call = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? c.api.enable_runtime_api : c.api.enable_driver_api;
    if (per_call != nullptr) per_call(cbid, on ? 1 : 0);
  }
  c.recording = on;
}

// CUPTI started on a thread with no CUDA context current, after the
// process's contexts were made (an attach session, a watch), recorded no
// GPU work on an H100. The thread that starts it borrows the device's
// primary context while it does, when that context already exists (never
// creating one: that would take GPU memory the program did not ask for).
// SYNCSCOPE_GPU_TIMELINE_BORROW_CONTEXT=0 turns this off.
class BorrowedContext {
 public:
  BorrowedContext() {
    const char* v = std::getenv(env::kGpuTimelineBorrowContext);
    if (v != nullptr && std::strcmp(v, "0") == 0) return;
    using GetCurrent = int (*)(void**);
    using GetState = int (*)(int, unsigned*, int*);
    using Retain = int (*)(void**, int);
    auto get_current = reinterpret_cast<GetCurrent>(find_real_function(RealLibrary::kCudaDriver, "cuCtxGetCurrent"));
    auto get_state =
        reinterpret_cast<GetState>(find_real_function(RealLibrary::kCudaDriver, "cuDevicePrimaryCtxGetState"));
    auto retain = reinterpret_cast<Retain>(find_real_function(RealLibrary::kCudaDriver, "cuDevicePrimaryCtxRetain"));
    release_ = reinterpret_cast<Release>(find_real_function(RealLibrary::kCudaDriver, "cuDevicePrimaryCtxRelease"));
    set_current_ = reinterpret_cast<SetCurrent>(find_real_function(RealLibrary::kCudaDriver, "cuCtxSetCurrent"));
    if (!get_current || !get_state || !retain || !release_ || !set_current_) return;
    void* current = nullptr;
    if (get_current(&current) != 0 || current != nullptr) return;  // the driver not initialised, or one is current
    for (int device = 0; device < 16; ++device) {
      unsigned flags = 0;
      int active = 0;
      if (get_state(device, &flags, &active) != 0) break;  // no such device
      if (!active) continue;
      void* context = nullptr;
      if (retain(&context, device) != 0) continue;
      if (set_current_(context) != 0) {
        release_(device);
        continue;
      }
      device_ = device;
      log_debug("GPU timeline: starting CUPTI with device %d's primary context current", device);
      return;
    }
  }
  ~BorrowedContext() {
    if (device_ < 0) return;
    set_current_(nullptr);
    release_(device_);
  }
  BorrowedContext(const BorrowedContext&) = delete;
  BorrowedContext& operator=(const BorrowedContext&) = delete;

 private:
  using Release = int (*)(int);
  using SetCurrent = int (*)(void*);
  Release release_ = nullptr;
  SetCurrent set_current_ = nullptr;
  int device_ = -1;
};

// A window begins now (the kinds already on): when it closes, when the next opens.
void begin_window(Control& c) {
  c.window_open_ns = monotonic_ns();
  c.window_close_ns = c.window_open_ns + c.window_ns;
  c.next_open_ns += c.period_ns;
  while (c.next_open_ns <= c.window_close_ns) c.next_open_ns += c.period_ns;  // late drains: skip, never overlap
}

// CUPTI attached again after a detach (every CUPTI call made it attach
// lazily; this one is the subscription): the same callbacks, clock and
// kinds as at start. False, with CUPTI left alone, when it is refused.
bool reattach(Control& c) {
  InHookScope quiet;
  BorrowedContext borrowed;
  CUptiResult result = c.api.subscribe(&c.subscriber, on_api_callback, nullptr);
  if (result != CUPTI_SUCCESS) {
    c.subscriber = nullptr;
    note(info_key::kGpuTimelineStopped,
         std::string("CUPTI refused a new window (") + result_text(c.api, result) + "; another tool?)");
    c.active = false;
    return false;
  }
  c.detached = false;
  if (c.system_tids) c.api.set_thread_id_type(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  if (c.timestamp_callback) c.api.register_timestamp(trace_clock_now);
  calibrate_offset(c.api);
  {
    // Before any kind is on: every record of this attach starts after.
    std::lock_guard<std::mutex> lock(g_pending->mutex);
    g_pending->epochs.push_back(Pending::Epoch{monotonic_ns(), 0, false});
  }
  c.api.register_callbacks(buffer_requested, buffer_completed);
  return true;
}

// A detach asked for at the last window's close, as it stands now: true
// when it is settled (cancelled while no CUDA call came, or finalized),
// false while a CUDA call's exit is finalizing CUPTI.
bool settle_detach(Control& c) {
  if (!c.detaching) return true;
  int state = kDetachAsked;
  if (g_detach.compare_exchange_strong(state, kAttached, std::memory_order_acq_rel)) {
    c.api.enable_domain(0, c.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
    c.api.enable_domain(0, c.subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
    c.detaching = false;
    return true;
  }
  if (state == kFinalizing) return false;
  g_detach.store(kAttached, std::memory_order_relaxed);
  c.detaching = false;
  c.detached = true;
  c.subscriber = nullptr;  // finalize ended it
  return true;
}

void open_window(Control& c) {
  if (!settle_detach(c)) return;  // the next drain tries again
  if (c.detached && !reattach(c)) return;
  set_recording(c, true);
  begin_window(c);
}

// After the kinds went off and their records were flushed: asks the next
// CUDA call to finalize CUPTI at its exit. Without the two calls this
// needs, CUPTI stays attached with its kinds off.
void ask_detach(Control& c) {
  if (!c.detach_between_windows) return;
  g_detach.store(kDetachAsked, std::memory_order_release);
  if (c.api.enable_domain(1, c.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) != CUPTI_SUCCESS ||
      c.api.enable_domain(1, c.subscriber, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
    c.detaching = true;
    settle_detach(c);  // cancels it (no callback can have run without the domains) or sees it done
    if (!c.detached) {
      c.detach_between_windows = false;
      note(info_key::kGpuTimelineBetweenWindows, "attached, kinds off (CUPTI refused its API callbacks)");
    }
    return;
  }
  c.detaching = true;
}

// Turns the kinds off and files the window (less its margins) for the trace.
void close_window(Control& c) {
  const uint64_t closed = monotonic_ns();
  set_recording(c, false);
  if (c.detach_between_windows) {
    c.api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // nothing of this window may be left in CUPTI
    ask_detach(c);
  }
  const uint64_t margin = std::min(kWindowMarginNs, c.window_ns / 5);
  GpuRecord w{};
  w.kind = static_cast<uint8_t>(GpuKind::kWindow);
  w.device = -1;
  w.start_ns = c.window_open_ns + margin;
  w.end_ns = closed > margin ? closed - margin : 0;
  if (w.end_ns <= w.start_ns) return;
  std::lock_guard<std::mutex> lock(g_pending->mutex);
  g_pending->records.push_back(w);
}

// The collector's drain: opens or closes the window that is due.
void advance_sampling(Control& c, uint64_t now) {
  if (c.period_ns == 0) return;
  if (c.recording && now >= c.window_close_ns) {
    close_window(c);
  } else if (!c.recording && now >= c.next_open_ns) {
    open_window(c);
  }
}

// Right after the kinds were enabled at start: the schedule, and the kinds
// off until the first window.
void start_sampling(Control& c) {
  c.recording = true;
  c.period_ns = uint64_t{config().gpu_period_ms} * 1000000ull;
  c.window_ns = uint64_t{config().gpu_window_ms} * 1000000ull;
  if (c.period_ns == 0) {
    note(info_key::kGpuTimelineSampling, "full");
    return;
  }
  note(info_key::kGpuTimelineSampling,
       std::to_string(config().gpu_window_ms) + "/" + std::to_string(config().gpu_period_ms));
  const char* detach = std::getenv(env::kGpuTimelineDetach);
  c.detach_between_windows = c.api.finalize != nullptr && c.api.enable_domain != nullptr &&
                             !(detach != nullptr && std::strcmp(detach, "0") == 0);
  note(info_key::kGpuTimelineBetweenWindows,
       c.detach_between_windows ? "detached (cuptiFinalize)" : "attached, kinds off");
  const uint64_t now = monotonic_ns();
  const uint64_t delay = uint64_t{config().gpu_first_window_delay_ms} * 1000000ull;
  c.next_open_ns = now + std::min(delay, c.period_ns - c.window_ns);
  if (c.next_open_ns == now) {
    begin_window(c);  // the first window is this one: the kinds stay on
  } else {
    set_recording(c, false);
    ask_detach(c);
  }
}

void release(Control& c) {
  set_recording(c, false);
  c.enabled.clear();
  c.enabled_apis.clear();
  if (c.subscriber != nullptr) c.api.unsubscribe(c.subscriber);
  c.subscriber = nullptr;
  c.active = false;
}

void stop_locked(Control& c) {
  if (!c.active) return;
  // A finalize under way (a CUDA call's exit) is short: waited for, up to 2 s.
  for (int waited_ms = 0; !settle_detach(c) && waited_ms < 2000; ++waited_ms) usleep(1000);
  if (c.detached || c.detaching) {
    c.active = false;  // nothing left in CUPTI; any call now would attach it again
  } else {
    c.detach_between_windows = false;  // released below instead
    if (c.period_ns != 0 && c.recording) close_window(c);
    c.api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // hands every buffer back through buffer_completed
    release(c);
  }
  std::lock_guard<std::mutex> lock(g_pending->mutex);
  Pending& p = *g_pending;
  if (p.dropped_here + p.dropped_cupti > 0) {
    p.notes.emplace_back(info_key::kGpuTimelineDropped, std::to_string(p.dropped_here + p.dropped_cupti));
  }
}

// Before CUPTI's own exit handlers (registered earlier, so run later): its
// records must be out before it tears down. The collector writes them.
void at_exit() {
  Control& c = *g_control;
  if (!c.mutex.try_lock()) return;  // a stop is under way
  stop_locked(c);
  c.mutex.unlock();
}

void after_fork_child() {
  // The parent's CUPTI state is not the child's (CUDA does not survive
  // fork). The child's is made afresh in memory of its own, the parent's
  // left as it is where it stays reachable (a leak checker must not call a
  // fork a leak; its mutex may be locked); in storage only without memory.
  void* control = ::operator new(sizeof(Control), std::align_val_t{alignof(Control)}, std::nothrow);
  g_control = new (control != nullptr ? control : static_cast<void*>(g_control_storage)) Control();
  void* pending = ::operator new(sizeof(Pending), std::align_val_t{alignof(Pending)}, std::nothrow);
  g_pending = new (pending != nullptr ? pending : static_cast<void*>(g_pending_storage)) Pending();
  g_detach.store(kAttached, std::memory_order_relaxed);
  g_forked_child = true;
}

bool start_locked(Control& c, std::string* why, bool* warn) {
  if (c.library == nullptr) {
    c.library = open_cupti_library(&c.library_path, why);
    if (c.library == nullptr) return false;
    std::string missing;
    if (!resolve_all(c, &missing)) {
      *why = c.library_path + " lacks " + missing;
      c.library = nullptr;  // never dlclose'd: harmless, and CUPTI may be someone else's
      return false;
    }
  }
  uint32_t version = 0;
  c.api.get_version(&version);
  // Record layouts are CUPTI 13's (CUPTI_API_VERSION 130000 and up).
  if (version / 10000 != CUPTI_API_VERSION / 10000) {
    *why = "CUPTI API version " + std::to_string(version) + " in " + c.library_path + ", this build reads " +
           std::to_string(CUPTI_API_VERSION / 10000) + ".x";
    return false;
  }
  CUptiResult result = c.api.subscribe(&c.subscriber, on_api_callback, nullptr);
  if (result != CUPTI_SUCCESS) {
    c.subscriber = nullptr;
    if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      *why = "CUPTI is in use by another tool (torch.profiler, Nsight Systems?)";
      *warn = true;
    } else {
      *why = std::string("cuptiSubscribe failed: ") + result_text(c.api, result);
      *warn = result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
    }
    return false;
  }
  c.active = true;
  c.system_tids = c.api.set_thread_id_type != nullptr &&
                     c.api.set_thread_id_type(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) == CUPTI_SUCCESS;
  if (!c.system_tids) note(info_key::kGpuTimelineThreadIds, "pthread (records cannot join by thread)");
  const bool callback = config().gpu_timestamp_callback && c.api.register_timestamp != nullptr &&
                        c.api.register_timestamp(trace_clock_now) == CUPTI_SUCCESS;
  c.timestamp_callback = callback;
  g_timestamp_callback.store(callback, std::memory_order_relaxed);
  calibrate_offset(c.api);
  result = c.api.register_callbacks(buffer_requested, buffer_completed);
  if (result != CUPTI_SUCCESS) {
    *why = std::string("cuptiActivityRegisterCallbacks failed: ") + result_text(c.api, result);
    release(c);
    return false;
  }
  std::string kinds;
  std::string refused;
  const std::pair<CUpti_ActivityKind, const char*> gpu_kinds[] = {
      {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "kernel"},
      {CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy"},
      {CUPTI_ACTIVITY_KIND_MEMSET, "memset"},
      {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "sync"},
  };
  for (const auto& [kind, name] : gpu_kinds) {
    result = c.api.enable(kind);
    if (result == CUPTI_SUCCESS) {
      c.enabled.push_back(kind);
      kinds += kinds.empty() ? name : std::string(",") + name;
    } else {
      refused += std::string(refused.empty() ? "" : ", ") + name + ": " + result_text(c.api, result);
    }
  }
  if (c.enabled.empty()) {
    *why = "CUPTI enabled no GPU activity kind (" + refused + ")";
    release(c);
    return false;
  }
  std::string runtime_apis = enable_api_records(c, true);
  std::string driver_apis = enable_api_records(c, false);
  note(info_key::kGpuTimeline, "on");
  note(info_key::kGpuTimelineCupti, c.library_path + " (API " + std::to_string(version) + ")");
  note(info_key::kGpuTimelineClock, callback ? "callback" : "offset");
  note(info_key::kGpuTimelineKinds, kinds);
  note(info_key::kGpuTimelineApiRecords, "runtime: " + runtime_apis + "; driver: " + driver_apis);
  if (!refused.empty()) note(info_key::kGpuTimelineRefused, refused);
  start_sampling(c);
  c.last_flush_ns = monotonic_ns();
  if (!c.at_exit_registered) {
    std::atexit(at_exit);
    c.at_exit_registered = true;
  }
  log_debug("GPU timeline on (%s, %s clock)", c.library_path.c_str(), callback ? "callback" : "offset");
  return true;
}

std::once_flag g_atfork_once;

}  // namespace

void gpu_timeline_start() {
  std::call_once(g_atfork_once, [] { pthread_atfork(nullptr, nullptr, after_fork_child); });
  {
    // A new trace file: its kernel names are written afresh.
    std::lock_guard<std::mutex> lock(g_pending->mutex);
    g_pending->names.clear();
    g_pending->new_strings.clear();
    g_pending->records.clear();
    g_pending->notes.clear();
    g_pending->dropped_here = g_pending->dropped_cupti = 0;
  }
  if (!config().gpu_timeline) {
    turn_off(info_key::kGpuTimelineNotAskedFor, false);
    return;
  }
  if (g_forked_child) {
    turn_off("forked child (CUPTI does not follow fork)", false);
    return;
  }
  Control& c = *g_control;
  std::lock_guard<std::mutex> lock(c.mutex);
  if (c.active) return;
  InHookScope quiet;  // CUPTI's own CUDA calls must never be recorded
  BorrowedContext borrowed;
  std::string why;
  bool warn = false;
  if (!start_locked(c, &why, &warn)) turn_off(why, warn);
}

void gpu_timeline_drain(TraceWriter& writer, bool room) {
  Control& c = *g_control;
  if (c.mutex.try_lock()) {  // never wait for a start or stop
    if (c.active) {
      uint64_t now = monotonic_ns();
      advance_sampling(c, now);
      if (c.active && !c.detaching && !c.detached && now - c.last_flush_ns >= kPeriodicFlushNs) {
        c.last_flush_ns = now;
        calibrate_offset(c.api);
        c.api.flush_all(0);  // completed buffers come back through buffer_completed
      }
    }
    c.mutex.unlock();
  }
  std::vector<GpuRecord> records;
  std::vector<std::pair<uint32_t, std::string>> strings;
  std::vector<std::pair<std::string, std::string>> notes;
  {
    std::lock_guard<std::mutex> lock(g_pending->mutex);
    records.swap(g_pending->records);
    strings.swap(g_pending->new_strings);
    notes.swap(g_pending->notes);
    if (!room) {
      g_pending->dropped_here += records.size();
      records.clear();
    }
  }
  for (const auto& [key, value] : notes) writer.add_process_info(key, value);
  for (const auto& [id, text] : strings) writer.add_string(id, text);
  writer.add_gpu_records(records.data(), records.size());
}

void gpu_timeline_stop() {
  Control& c = *g_control;
  std::lock_guard<std::mutex> lock(c.mutex);
  InHookScope quiet;
  stop_locked(c);
}

}  // namespace syncscope::preload
