#include "trace/api.h"

#include <array>

namespace syncscope {
namespace {

struct ApiInfo {
  std::string_view name;
  ApiFamily family;
};

constexpr std::array<ApiInfo, kApiCount> kApis = {{
    {"unknown", ApiFamily::kQuery},
#define SS_API(name, family, ...) {#name, ApiFamily::family},
#define SS_DRIVER_API SS_API
#define SS_MARKER SS_API
#include "trace/cuda_api_table.def"
#undef SS_MARKER
#undef SS_DRIVER_API
#undef SS_API
}};

}  // namespace

std::string_view api_name(uint16_t api) { return api < kApiCount ? kApis[api].name : std::string_view("unknown"); }

ApiFamily api_family(uint16_t api) { return api < kApiCount ? kApis[api].family : ApiFamily::kQuery; }

std::string_view family_name(ApiFamily family) {
  switch (family) {
    case ApiFamily::kSync:
      return "sync";
    case ApiFamily::kQuery:
      return "query";
    case ApiFamily::kStreamWait:
      return "stream-wait";
    case ApiFamily::kEventRecord:
      return "event-record";
    case ApiFamily::kCopy:
      return "copy";
    case ApiFamily::kMemset:
      return "memset";
    case ApiFamily::kAlloc:
      return "alloc";
    case ApiFamily::kFree:
      return "free";
    case ApiFamily::kHostAlloc:
      return "host-alloc";
    case ApiFamily::kHostFree:
      return "host-free";
    case ApiFamily::kHostRegister:
      return "host-register";
    case ApiFamily::kHostUnregister:
      return "host-unregister";
    case ApiFamily::kLaunch:
      return "launch";
    case ApiFamily::kGraphLaunch:
      return "graph-launch";
    case ApiFamily::kHostFunc:
      return "host-func";
    case ApiFamily::kStreamCreate:
      return "stream-create";
    case ApiFamily::kStreamDestroy:
      return "stream-destroy";
    case ApiFamily::kCaptureBegin:
      return "capture-begin";
    case ApiFamily::kCaptureEnd:
      return "capture-end";
    case ApiFamily::kVmmMap:
      return "vmm-map";
    case ApiFamily::kVmmUnmap:
      return "vmm-unmap";
    case ApiFamily::kMarker:
      return "marker";
  }
  return "unknown";
}

bool api_is_driver(uint16_t api) {
  std::string_view name = api_name(api);
  return name.size() > 2 && name.substr(0, 2) == "cu" && name.substr(0, 4) != "cuda";
}

std::string_view direction_name(uint8_t direction) {
  static constexpr std::string_view kNames[] = {"", "H2H", "H2D", "D2H", "D2D", "?"};
  return direction < 6 ? kNames[direction] : "?";
}

std::string_view host_mem_name(uint8_t host_mem) {
  static constexpr std::string_view kNames[] = {"", "pinned", "pageable", "managed", "unknown"};
  return host_mem < 5 ? kNames[host_mem] : "unknown";
}

bool api_issues_gpu_work(uint16_t api) {
  const ApiFamily f = api_family(api);
  return f == ApiFamily::kLaunch || f == ApiFamily::kGraphLaunch || f == ApiFamily::kCopy || f == ApiFamily::kMemset;
}

}  // namespace syncscope
