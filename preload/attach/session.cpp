#include "preload/attach/session.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "preload/recording/collector.h"
#include "preload/core/config.h"
#include "preload/attach/import_redirection.h"
#include "preload/core/load_mode.h"
#include "preload/core/loaded_objects.h"
#include "preload/core/log.h"
#include "preload/recording/process_info.h"
#include "preload/recording/recorder.h"
#include "trace/process_info_keys.h"

namespace syncscope::preload {
namespace {

std::atomic<bool> g_active{false};
// Serialises the requests: the endpoint's thread and in-process callers.
std::mutex g_requests;

bool object_loaded(const char* fragment) { return !loaded_object_path(fragment).empty(); }

// What a late-loaded recorder cannot see, for the report's header: calls
// made through function pointers handed out before the attach.
std::vector<std::string> blind_spots() {
  std::vector<std::string> spots;
  spots.push_back(
      "driver functions the CUDA runtime fetched when it started (its own cuLaunchKernel, cuMemcpy...): "
      "runtime calls are recorded, their driver-level twins are not");
  std::string cached =
      "driver function pointers looked up before the attach (dlsym, cuGetProcAddress, "
      "cudaGetDriverEntryPoint)";
  if (object_loaded("libtorch_cuda")) cached += ": PyTorch's driver table (expandable segments' cuMemCreate/cuMemMap)";
  if (object_loaded("triton")) cached += ", Triton launchers already built";
  spots.push_back(cached);
  std::string privately;
  for (const char* library : {"libcublasLt", "libcublas.", "libcudnn", "libnccl", "libcufft", "libcusparse"}) {
    if (!object_loaded(library)) continue;
    if (!privately.empty()) privately += ", ";
    std::string name = library;
    if (name.back() == '.') name.pop_back();
    privately += name;
  }
  if (!privately.empty()) {
    spots.push_back("work these libraries launch through their own copy of the runtime or cached driver pointers: " +
                    privately);
  }
  return spots;
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

const char* attach_mode() { return loaded_late() ? info_key::kAttachModeInjected : info_key::kAttachModeDormant; }

// The trace's process record says how this session was recorded.
void describe_session_in_trace(int redirected) {
  std::vector<std::pair<std::string, std::string>> info;
  info.emplace_back(info_key::kAttachMode, attach_mode());
  if (loaded_late()) {
    RedirectionSummary summary = redirection_summary();
    info.emplace_back(info_key::kAttachRedirectedSlots, std::to_string(redirected));
    info.emplace_back(info_key::kAttachRedirectedObjects, join(summary.objects, ", "));
    std::vector<std::string> spots = blind_spots();
    for (size_t i = 0; i < spots.size(); ++i) {
      info.emplace_back(info_key::attach_not_seen_key(static_cast<int>(i + 1)), spots[i]);
    }
  }
  set_session_info(std::move(info));
}

}  // namespace

bool session_active() { return g_active.load(std::memory_order_acquire); }

namespace {

control::Message describe_locked() {
  control::HelloReply hello;
  hello.version = SYNCSCOPE_VERSION;
  hello.pid = getpid();
  hello.mode = attach_mode();
  hello.recording = recording();
  if (hello.recording) hello.trace = collector_trace_path();
  return control::ok_reply(hello);
}

control::Message start_locked(const std::string& output_dir, bool gpu_timeline, const std::string& gpu_sampling) {
  if (session_active()) return control::error_reply("a session is already recording this process");
  if (recording()) return control::error_reply("this process is already recording (started without --dormant)");
  if (output_dir.empty() || output_dir[0] != '/') {
    return control::error_reply("the output directory must be an absolute path");
  }
  if (output_dir.size() >= sizeof(Config{}.output_dir)) {
    return control::error_reply("the output directory path is too long");
  }
  if (access(output_dir.c_str(), W_OK | X_OK) != 0) {
    return control::error_reply("the process cannot write to " + output_dir + ": " + std::strerror(errno));
  }
  Config settings = config();
  std::memset(settings.output_dir, 0, sizeof(settings.output_dir));
  std::memcpy(settings.output_dir, output_dir.data(), output_dir.size());
  // This session's timeline: asked for by `attach --gpu-timeline`, or by the
  // environment the process started with (`run --dormant --gpu-timeline`).
  const Config from_environment = config_from_environment();
  settings.gpu_timeline = gpu_timeline || from_environment.gpu_timeline;
  settings.gpu_burst_ms = from_environment.gpu_burst_ms;
  settings.gpu_period_ms = from_environment.gpu_period_ms;
  if (!gpu_sampling.empty() && !parse_gpu_sampling(gpu_sampling.c_str(), &settings)) {
    return control::error_reply("gpu_sampling must be full or W/P in milliseconds, not " + gpu_sampling);
  }
  settings.gpu_first_burst_delay_ms = 0;  // the process is past start-up: sample from now
  settings.gpu_detach_between_bursts = false;  // sessions stay attached between bursts (config.h says why)
  set_config(settings);

  int redirected = loaded_late() ? redirect_imports() : 0;
  describe_session_in_trace(redirected);
  char error[512] = {};
  if (!collector_start_session(error, sizeof(error))) {
    if (loaded_late()) restore_imports();
    return control::error_reply(error);
  }
  // Objects loaded during the session (a Triton launcher compiled now, a
  // plugin) are redirected too: the collector rescans after each flush.
  if (loaded_late()) collector_set_periodic(+[] { redirect_imports(); });
  g_active.store(true, std::memory_order_release);
  g_recording.store(true, std::memory_order_release);
  log_debug("session: recording into %s (%d import slots redirected)", collector_trace_path(), redirected);
  return control::ok_reply(control::StartReply{collector_trace_path(), static_cast<uint64_t>(redirected)});
}

control::Message flush_locked() {
  // Without a session, a process recording since it started has its
  // recording flushed (syncscope.watch() under plain `syncscope run`).
  if (!session_active() && !recording()) return control::error_reply("no session is recording");
  return collector_flush_now() ? control::ok_reply() : control::error_reply("the flush did not complete within 5 s");
}

control::Message stop_locked() {
  if (!session_active()) return control::error_reply("no session is recording");
  g_recording.store(false, std::memory_order_release);
  collector_set_periodic(nullptr);
  unsigned long long events = collector_stop_session();
  // After the collector thread is gone: its rescan can no longer race this.
  RestoreResult restored;
  if (loaded_late()) restored = restore_imports();
  g_active.store(false, std::memory_order_release);
  log_debug("session: stopped after %llu events", events);
  return control::ok_reply(control::StopReply{events, static_cast<uint64_t>(restored.restored),
                                              static_cast<uint64_t>(restored.left),
                                              static_cast<uint64_t>(restored.gone)});
}

}  // namespace

control::Message session_describe() {
  std::lock_guard<std::mutex> lock(g_requests);
  return describe_locked();
}

control::Message session_start(const std::string& output_dir, bool gpu_timeline, const std::string& gpu_sampling) {
  std::lock_guard<std::mutex> lock(g_requests);
  return start_locked(output_dir, gpu_timeline, gpu_sampling);
}

control::Message session_flush() {
  std::lock_guard<std::mutex> lock(g_requests);
  return flush_locked();
}

control::Message session_stop() {
  std::lock_guard<std::mutex> lock(g_requests);
  return stop_locked();
}

void session_after_fork_child() { new (&g_requests) std::mutex(); }

control::Message session_handle(const control::Request& request) {
  switch (request.command) {
    case control::Command::kHello:
      return session_describe();
    case control::Command::kStart:
      return session_start(request.output_dir, request.gpu_timeline, request.gpu_sampling);
    case control::Command::kFlush:
      return session_flush();
    case control::Command::kStop:
      return session_stop();
  }
  return control::error_reply("unknown command");
}

}  // namespace syncscope::preload
