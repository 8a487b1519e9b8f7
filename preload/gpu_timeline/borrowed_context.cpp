#include "preload/gpu_timeline/borrowed_context.h"

#include <cstdlib>
#include <cstring>

#include "preload/core/log.h"
#include "preload/core/real_function.h"
#include "trace/environment.h"

namespace syncscope::preload::cupti {

BorrowedContext::BorrowedContext() {
  const char* v = std::getenv(env::kGpuTimelineBorrowContext);
  if (v != nullptr && std::strcmp(v, "0") == 0) return;
  using GetCurrent = int (*)(void**);
  using GetState = int (*)(int, unsigned*, int*);
  using Retain = int (*)(void**, int);
  auto get_current = reinterpret_cast<GetCurrent>(find_real_function(RealLibrary::kCudaDriver, "cuCtxGetCurrent"));
  auto get_state =
      reinterpret_cast<GetState>(find_real_function(RealLibrary::kCudaDriver, "cuDevicePrimaryCtxGetState"));
  auto retain = reinterpret_cast<Retain>(find_real_function(RealLibrary::kCudaDriver, "cuDevicePrimaryCtxRetain"));
  release_ = reinterpret_cast<Release>(find_real_function(RealLibrary::kCudaDriver, "cuDevicePrimaryCtxRelease"));
  set_current_ = reinterpret_cast<SetCurrent>(find_real_function(RealLibrary::kCudaDriver, "cuCtxSetCurrent"));
  if (!get_current || !get_state || !retain || !release_ || !set_current_) return;
  void* current = nullptr;
  if (get_current(&current) != 0 || current != nullptr) return;  // the driver not initialised, or one is current
  for (int device = 0; device < 16; ++device) {
    unsigned flags = 0;
    int active = 0;
    if (get_state(device, &flags, &active) != 0) break;  // no such device
    if (!active) continue;
    void* context = nullptr;
    if (retain(&context, device) != 0) continue;
    if (set_current_(context) != 0) {
      release_(device);
      continue;
    }
    device_ = device;
    log_debug("GPU timeline: starting CUPTI with device %d's primary context current", device);
    return;
  }
}

BorrowedContext::~BorrowedContext() {
  if (device_ < 0) return;
  set_current_(nullptr);
  release_(device_);
}

}  // namespace syncscope::preload::cupti
