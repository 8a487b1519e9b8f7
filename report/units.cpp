#include "report/units.h"

#include <algorithm>
#include <cstdio>

namespace syncscope {

std::string format_duration(uint64_t ns) {
  char buffer[32];
  if (ns < 1000)
    std::snprintf(buffer, sizeof(buffer), "%llu ns", static_cast<unsigned long long>(ns));
  else if (ns < 1000000)
    std::snprintf(buffer, sizeof(buffer), "%.1f µs", ns / 1e3);
  else if (ns < 1000000000)
    std::snprintf(buffer, sizeof(buffer), "%.2f ms", ns / 1e6);
  else
    std::snprintf(buffer, sizeof(buffer), "%.2f s", ns / 1e9);
  return buffer;
}

std::string format_bytes(uint64_t bytes) {
  char buffer[32];
  if (bytes < 1024)
    std::snprintf(buffer, sizeof(buffer), "%llu B", static_cast<unsigned long long>(bytes));
  else if (bytes < (1ull << 20))
    std::snprintf(buffer, sizeof(buffer), "%.1f KiB", bytes / 1024.0);
  else if (bytes < (1ull << 30))
    std::snprintf(buffer, sizeof(buffer), "%.2f MiB", bytes / 1048576.0);
  else
    std::snprintf(buffer, sizeof(buffer), "%.2f GiB", bytes / 1073741824.0);
  return buffer;
}

std::string format_percent(double share) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.0f%%", share * 100);
  return buffer;
}

std::string format_computed_duration(double ns) {
  return format_duration(static_cast<uint64_t>(std::max(0.0, ns) + 0.5));
}

}  // namespace syncscope
