// The CUPTI functions the GPU timeline calls, looked up by name in the
// dlopen'ed library (never linked: a target without CUPTI must still load
// the preload), and the text of a CUPTI result for the notes.
#pragma once

#include <cupti.h>

#include <string>

namespace syncscope::preload::cupti {

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

// The required functions and the optional ones (each optional one has a
// fallback) from `library`; false with *missing naming the first required
// function the library lacks.
bool resolve_all(void* library, CuptiApi* api, std::string* missing);

const char* result_text(const CuptiApi& api, CUptiResult result);

}  // namespace syncscope::preload::cupti
