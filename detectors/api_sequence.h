// How findings name a call in their API sequence: "cudaMemcpyAsync(D2H)".
#pragma once

#include <string>

#include "trace/event.h"

namespace syncscope {

// The API's name, with the copy direction in parentheses for copies.
std::string with_direction(const Event& e);

}  // namespace syncscope
