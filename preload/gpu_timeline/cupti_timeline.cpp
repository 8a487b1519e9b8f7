// The CUPTI adapter of the GPU timeline (docs/gpu-timeline.md). CUPTI's
// functions are looked up in the dlopen'ed library; its record layouts come
// from the CUDA 13 headers (checked against cuptiGetVersion). Nothing here
// is reached from a hooked call: start runs when a trace is opened, the
// buffer callbacks on CUPTI's thread (or the flushing one), drain and stop
// on the collector thread.
//
// This file starts and stops it and hands the collector what it has; the
// rest, each a job of its own: the CUPTI functions (cupti_api.h), the
// state they share (cupti_state.h), which kinds are on (activity_kinds.h),
// the buffers CUPTI hands back (activity_buffers.h) and their records
// (cupti_records.h), CUPTI's clock against ours (clock_calibration.h),
// sampling (sampling.h) and detaching between samples (cupti_detach.h), and
// a CUDA context to start CUPTI with (borrowed_context.h).
#include "preload/gpu_timeline/cupti_timeline.h"

#include <cupti.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "preload/core/clock.h"
#include "preload/core/config.h"
#include "preload/core/in_hook.h"
#include "preload/core/log.h"
#include "preload/gpu_timeline/activity_buffers.h"
#include "preload/gpu_timeline/activity_kinds.h"
#include "preload/gpu_timeline/borrowed_context.h"
#include "preload/gpu_timeline/clock_calibration.h"
#include "preload/gpu_timeline/cupti_api.h"
#include "preload/gpu_timeline/cupti_detach.h"
#include "preload/gpu_timeline/cupti_state.h"
#include "preload/gpu_timeline/sampling.h"
#include "trace/gpu_record.h"
#include "trace/process_info_keys.h"
#include "trace/writer.h"

namespace syncscope::preload {

using namespace cupti;

namespace {

constexpr uint64_t kPeriodicFlushNs = 500000000ull;  // ask CUPTI for its records every 0.5 s

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
    c.detach_between_bursts = false;  // released below instead
    if (c.period_ns != 0 && c.recording) close_burst(c);
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

bool start_locked(Control& c, std::string* why, bool* warn) {
  if (c.library == nullptr) {
    c.library = open_cupti_library(&c.library_path, why);
    if (c.library == nullptr) return false;
    std::string missing;
    if (!resolve_all(c.library, &c.api, &missing)) {
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
