// The trace directory of `run` and `attach`: a timestamped default, and a
// refusal to mix a new recording into old traces unless --force.
#pragma once

#include <string>

namespace syncscope {

// "<prefix>-YYYYmmdd-HHMMSS" in the working directory.
std::string default_output_dir(const std::string& prefix);

// Creates `dir`; with `force`, removes the traces already in it, else
// refuses (logging why) when it holds any. False after logging the error.
bool prepare_output_dir(const std::string& dir, bool force);

}  // namespace syncscope
