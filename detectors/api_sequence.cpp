#include "detectors/api_sequence.h"

#include "trace/api.h"

namespace syncscope {

std::string with_direction(const Event& e) {
  static const char* kDirections[] = {"", "H2H", "H2D", "D2H", "D2D", "?"};
  std::string name(api_name(e.api));
  if (e.direction != 0 && e.direction < 6) name += std::string("(") + kDirections[e.direction] + ")";
  return name;
}

}  // namespace syncscope
