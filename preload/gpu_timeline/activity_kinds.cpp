#include "preload/gpu_timeline/activity_kinds.h"

#include <cstring>
#include <unordered_set>

#include "preload/core/config.h"
#include "preload/gpu_timeline/cupti_records.h"

namespace syncscope::preload::cupti {
namespace {

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

}  // namespace

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

void set_recording(Control& c, bool on) {
  for (CUpti_ActivityKind kind : c.enabled) on ? c.api.enable(kind) : c.api.disable(kind);
  for (const auto& [domain, cbid] : c.enabled_apis) {
    auto per_call = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? c.api.enable_runtime_api : c.api.enable_driver_api;
    if (per_call != nullptr) per_call(cbid, on ? 1 : 0);
  }
  c.recording = on;
}

}  // namespace syncscope::preload::cupti
