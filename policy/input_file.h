// Reading the files a user names (suppressions, baselines, findings to diff)
// and the files a trace names (Python sources): only regular files. A
// directory, a FIFO (which would block for ever) or a device (/dev/zero:
// endless) is refused with a message that says so.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace syncscope {

// Whether `path` is a regular file (following links); *why says what it is
// otherwise ("a directory", "a FIFO", "a device", or the errno text).
bool is_regular_file(const std::string& path, std::string* why);

// The whole file. `what` names it in errors: "suppressions file", "baseline".
absl::StatusOr<std::string> read_input_file(const std::string& path, const std::string& what);

}  // namespace syncscope
