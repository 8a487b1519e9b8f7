#include "preload/core/load_mode.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#include "preload/core/preload_list.h"

namespace syncscope::preload {
namespace {

LoadMode g_mode = LoadMode::kPreloaded;

// Basename of this library's file ("libsyncscope.so"), from the loader.
const char* own_basename() {
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&decide_load_mode), &self) == 0 || self.dli_fname == nullptr) return nullptr;
  const char* slash = std::strrchr(self.dli_fname, '/');
  return slash != nullptr ? slash + 1 : self.dli_fname;
}

}  // namespace

void decide_load_mode() {
  // A library the constructor runs for at startup through LD_PRELOAD is in
  // that variable (nothing can have edited it before the constructors run);
  // one injected into a running process is not.
  const char* list = std::getenv("LD_PRELOAD");
  const char* basename = own_basename();
  bool preloaded = list != nullptr && basename != nullptr && preload_list_names(list, basename);
  g_mode = preloaded ? LoadMode::kPreloaded : LoadMode::kLate;
}

LoadMode load_mode() { return g_mode; }

}  // namespace syncscope::preload
