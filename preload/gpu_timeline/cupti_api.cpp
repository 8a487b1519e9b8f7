#include "preload/gpu_timeline/cupti_api.h"

#include "preload/core/real_function.h"

namespace syncscope::preload::cupti {
namespace {

template <typename T>
bool resolve(void* library, const char* name, T* out) {
  // glibc's dlsym, not the preload's own hook (preload/core/real_function.h).
  *out = reinterpret_cast<T>(real_dlsym()(library, name));
  return *out != nullptr;
}

}  // namespace

bool resolve_all(void* library, CuptiApi* api, std::string* missing) {
  CuptiApi& a = *api;
  void* l = library;
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

const char* result_text(const CuptiApi& api, CUptiResult result) {
  const char* text = nullptr;
  if (api.result_string != nullptr && api.result_string(result, &text) == CUPTI_SUCCESS && text != nullptr) {
    return text;
  }
  return "CUPTI error";
}

}  // namespace syncscope::preload::cupti
