#include "preload/gpu_timeline/cupti_state.h"

#include <new>

#include "preload/core/log.h"
#include "trace/process_info_keys.h"

namespace syncscope::preload::cupti {
namespace {

alignas(Control) unsigned char g_control_storage[sizeof(Control)];
alignas(Pending) unsigned char g_pending_storage[sizeof(Pending)];

}  // namespace

std::atomic<int> g_detach{kAttached};
Control* g_control = new (g_control_storage) Control();  // never destroyed: used at exit
Pending* g_pending = new (g_pending_storage) Pending();
bool g_forked_child = false;

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

}  // namespace syncscope::preload::cupti
