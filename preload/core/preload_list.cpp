#include "preload/core/preload_list.h"

#include <cstring>

namespace syncscope::preload {

bool preload_list_names(const char* list, const char* basename) {
  if (list == nullptr || basename == nullptr || *basename == '\0') return false;
  const size_t length = std::strlen(basename);
  for (const char* p = list; *p != '\0';) {
    while (*p == ' ' || *p == ':') ++p;
    const char* end = p;
    while (*end != '\0' && *end != ' ' && *end != ':') ++end;
    const char* name = p;
    for (const char* q = p; q < end; ++q) {
      if (*q == '/') name = q + 1;
    }
    if (static_cast<size_t>(end - name) == length && std::strncmp(name, basename, length) == 0) return true;
    p = end;
  }
  return false;
}

}  // namespace syncscope::preload
