#include "tools/duration.h"

#include <cmath>
#include <cstdlib>

namespace syncscope {

std::optional<long long> parse_duration_ms(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(value) || value <= 0) return std::nullopt;
  const std::string unit(end);
  double scale;
  if (unit.empty() || unit == "s")
    scale = 1000;
  else if (unit == "ms")
    scale = 1;
  else if (unit == "m" || unit == "min")
    scale = 60 * 1000;
  else if (unit == "h")
    scale = 3600 * 1000;
  else
    return std::nullopt;
  double ms = value * scale;
  if (ms < 1 || ms > 1e12) return std::nullopt;
  return static_cast<long long>(std::llround(ms));
}

}  // namespace syncscope
