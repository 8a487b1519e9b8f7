#include "tools/byte_size.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace syncscope {

std::optional<uint64_t> parse_byte_size(const std::string& text) {
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.')) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  std::string unit(end);
  // Binary units whatever the spelling: a trace size is a file size.
  if (unit.size() >= 2 && (unit.substr(1) == "B" || unit.substr(1) == "iB")) unit = unit.substr(0, 1);
  double scale = 0;
  if (unit.empty() || unit == "M" || unit == "m") scale = 1024.0 * 1024;
  if (unit == "K" || unit == "k") scale = 1024.0;
  if (unit == "G" || unit == "g") scale = 1024.0 * 1024 * 1024;
  if (unit == "T" || unit == "t") scale = 1024.0 * 1024 * 1024 * 1024;
  if (scale == 0 || !std::isfinite(value) || value <= 0 || value * scale > 1e18) return std::nullopt;
  return static_cast<uint64_t>(value * scale);
}

}  // namespace syncscope
