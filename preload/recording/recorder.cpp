#include "preload/recording/recorder.h"

#include <pthread.h>

#include <cstring>

#include "preload/core/clock.h"
#include "preload/recording/collector.h"
#include "preload/core/config.h"
#include "preload/attach/control_endpoint.h"
#include "preload/core/in_hook.h"
#include "preload/core/load_mode.h"
#include "preload/core/log.h"
#include "preload/recording/pinned_map.h"
#include "preload/attach/session.h"
#include "preload/recording/stack_capture.h"
#include "preload/recording/stack_table.h"
#include "preload/recording/status_report.h"
#include "preload/recording/thread_state.h"
#include "trace/recording_status.h"

namespace syncscope::preload {

std::atomic<bool> g_recording{false};

void stop_recording() { g_recording.store(false, std::memory_order_relaxed); }

namespace {

void on_fork_prepare() { collector_before_fork(); }
void on_fork_parent() { collector_after_fork_parent(); }
void on_fork_child() {
  status_after_fork_child();
  registry_reset_in_child();
  control_endpoint_after_fork_child();
  session_after_fork_child();
  collector_after_fork_child();
}

// Runs when the preload loads: before the target's main(), or at dlopen
// time. Everything here must be cheap and must not call CUDA.
__attribute__((constructor)) void recorder_init() {
  decide_load_mode();
  set_config(config_from_environment());
  const Config& settings = config();
  // Knobs that could not be used, one line each (core/config.cpp).
  for (const char* line = settings.knob_warnings; *line != '\0';) {
    const char* end = std::strchr(line, '\n');
    const int length = static_cast<int>(end != nullptr ? end - line : std::strlen(line));
    log_warning("%.*s", length, line);
    line += length + (end != nullptr ? 1 : 0);
  }
  if (!settings.enabled) return;
  bool ok;
  {
    InHookScope in_hook;  // nothing here may record itself
    clock_init(settings.force_monotonic_clock);
    ok = stack_table().init() && pinned_map().init();
    if (settings.stacks) stack_capture_init();
  }
  if (!ok) {
    log_warning("cannot reserve memory for the recorder; recording disabled");
    report_status(kStatusRecorderFailed, "cannot reserve memory for the recorder");
    return;
  }
  pthread_atfork(on_fork_prepare, on_fork_parent, on_fork_child);
  if (settings.dormant || loaded_late()) {
    // Hooks in, recording off until `syncscope attach` starts a session
    // through the control endpoint (one relaxed load per hooked call).
    collector_use_sessions();
    control_endpoint_start();
    return;
  }
  g_recording.store(true, std::memory_order_release);
  log_debug("recording into %s", settings.output_dir);
}

__attribute__((destructor)) void recorder_fini() {
  if (tls_state != nullptr) flush_pending_native(tls_state);  // the exiting thread's owed events
  stop_recording();
  collector_shutdown();
}

}  // namespace
}  // namespace syncscope::preload
