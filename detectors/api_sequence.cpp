#include "detectors/api_sequence.h"

#include "trace/api.h"

namespace syncscope {

std::string with_direction(const Event& e) {
  std::string name(api_name(e.api));
  if (e.direction != 0) name += "(" + std::string(direction_name(e.direction)) + ")";
  return name;
}

}  // namespace syncscope
