#include "preload/core/loaded_objects.h"

#include <link.h>

#include <cstring>

namespace syncscope::preload {

std::string loaded_object_path(const char* fragment) {
  struct Search {
    const char* fragment;
    std::string path;
  } search{fragment, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, s->fragment) == nullptr) return 0;
        s->path = info->dlpi_name;
        return 1;
      },
      &search);
  return search.path;
}

}  // namespace syncscope::preload
