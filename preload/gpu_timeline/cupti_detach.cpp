#include "preload/gpu_timeline/cupti_detach.h"

#include <mutex>
#include <string>

#include "preload/core/clock.h"
#include "preload/core/in_hook.h"
#include "preload/gpu_timeline/activity_buffers.h"
#include "preload/gpu_timeline/borrowed_context.h"
#include "preload/gpu_timeline/clock_calibration.h"
#include "trace/process_info_keys.h"

namespace syncscope::preload::cupti {

void CUPTIAPI on_api_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (data == nullptr || static_cast<const CUpti_CallbackData*>(data)->callbackSite != CUPTI_API_EXIT) return;
  int expected = kDetachAsked;
  if (!g_detach.compare_exchange_strong(expected, kFinalizing, std::memory_order_acq_rel)) return;
  InHookScope quiet;          // CUPTI's own CUDA calls while it tears down are not the program's
  g_control->api.finalize();  // resolved before any subscription, never changed after
  g_detach.store(kFinalized, std::memory_order_release);
}

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

void ask_detach(Control& c) {
  if (!c.detach_between_bursts) return;
  g_detach.store(kDetachAsked, std::memory_order_release);
  if (c.api.enable_domain(1, c.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) != CUPTI_SUCCESS ||
      c.api.enable_domain(1, c.subscriber, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
    c.detaching = true;
    settle_detach(c);  // cancels it (no callback can have run without the domains) or sees it done
    if (!c.detached) {
      c.detach_between_bursts = false;
      note(info_key::kGpuTimelineBetweenWindows, "attached, kinds off (CUPTI refused its API callbacks)");
    }
    return;
  }
  c.detaching = true;
}

}  // namespace syncscope::preload::cupti
