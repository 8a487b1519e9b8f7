#include "tools/child_environment.h"

#include <map>

#include "tools/sanitizer_runtimes.h"
#include "trace/environment.h"

namespace syncscope {
namespace {

// LD_PRELOAD entries are separated by colons or spaces.
bool preload_lists(const std::string& value, const std::string& path) {
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find_first_of(": ", start);
    if (end == std::string::npos) end = value.size();
    if (value.compare(start, end - start, path) == 0) return true;
    start = end + 1;
  }
  return false;
}

// LD_PRELOAD with the sanitizer runtimes first (the user's own, then those
// `needed` names that are not there yet), everything else after in order.
std::string sanitizer_runtimes_first(const std::string& list, const std::vector<std::string>& needed) {
  std::vector<std::string> first, rest;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find_first_of(": ", start);
    if (end == std::string::npos) end = list.size();
    if (end > start) {
      std::string entry = list.substr(start, end - start);
      (is_first_sanitizer_runtime(entry) ? first : rest).push_back(std::move(entry));
    }
    start = end + 1;
  }
  auto base = [](const std::string& s) { return s.substr(s.rfind('/') == std::string::npos ? 0 : s.rfind('/') + 1); };
  for (const std::string& runtime : needed) {
    bool present = false;
    for (const std::string& f : first) present = present || base(f).rfind(base(runtime), 0) == 0;
    if (!present) first.push_back(runtime);
  }
  if (first.empty()) return list;
  std::string out;
  for (const auto* part : {&first, &rest}) {
    for (const std::string& entry : *part) out += (out.empty() ? "" : ":") + entry;
  }
  return out;
}

}  // namespace

std::vector<std::string> child_environment(const std::vector<std::string>& environment,
                                           const RecorderSettings& settings) {
  std::vector<std::string> out;
  std::map<std::string, std::string> overrides;
  if (!settings.output_dir.empty()) overrides[env::kOutputDir] = settings.output_dir;
  if (settings.dormant) overrides.insert_or_assign(env::kDormant, std::string(1, '1'));
  if (settings.flush_ms) overrides[env::kFlushMs] = std::to_string(*settings.flush_ms);
  if (settings.ring_events) overrides[env::kRingEvents] = std::to_string(*settings.ring_events);
  if (settings.max_trace_mib) overrides[env::kMaxTraceMiB] = std::to_string(*settings.max_trace_mib);
  if (!settings.detail.empty()) overrides[env::kDetail] = settings.detail;
  if (!settings.stacks) overrides.insert_or_assign(env::kStacks, std::string(1, '0'));
  if (settings.gpu_timeline) overrides.insert_or_assign(env::kGpuTimeline, std::string(1, '1'));
  if (settings.gpu_timeline && !settings.gpu_sampling.empty()) {
    overrides[env::kGpuTimelineSampling] = settings.gpu_sampling;
  }
  if (!settings.status_channel.empty()) overrides[env::kStatusFd] = settings.status_channel;

  std::string preload = settings.preload_path;
  std::string python_path = settings.python_hooks_dir;
  bool has_nvtx_injection = false;
  for (const std::string& kv : environment) {
    size_t eq = kv.find('=');
    std::string key = kv.substr(0, eq);
    if (overrides.count(key)) continue;
    if (key == env::kDisable) continue;  // the user asked to record
    // An enclosing run's channel: this run's recorders answer to this run only.
    if (key == env::kStatusFd) continue;
    if (key == "LD_PRELOAD" && eq != std::string::npos) {
      std::string value = kv.substr(eq + 1);
      if (preload_lists(value, settings.preload_path))
        preload = value;
      else if (!value.empty())
        preload = settings.preload_path + ":" + value;
      continue;
    }
    if (key == kNvtxInjectionVariable) {
      if (eq == std::string::npos || eq + 1 == kv.size()) continue;  // empty: ours instead
      has_nvtx_injection = true;
    }
    if (key == "PYTHONPATH" && eq != std::string::npos && !settings.python_hooks_dir.empty()) {
      // Ours first, so Python imports our sitecustomize (which then runs
      // the one it shadows); the user's path keeps its order after it.
      std::string value = kv.substr(eq + 1);
      if (!value.empty()) python_path = settings.python_hooks_dir + ":" + value;
      continue;
    }
    out.push_back(kv);
  }
  // NVTX ranges name phases (preload/gpu_timeline/nvtx_injection.cpp): the preload is
  // the NVTX injection library, unless another tool's already is.
  if (!has_nvtx_injection) out.push_back(std::string(kNvtxInjectionVariable) + "=" + settings.preload_path);
  out.push_back("LD_PRELOAD=" + sanitizer_runtimes_first(preload, settings.sanitizer_runtimes));
  if (!python_path.empty()) out.push_back("PYTHONPATH=" + python_path);
  for (const auto& [key, value] : overrides) out.push_back(key + "=" + value);
  return out;
}

}  // namespace syncscope
