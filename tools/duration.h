// Durations on the command line: "30s", "500ms", "2m", "1h", or a bare
// number of seconds ("10", "2.5").
#pragma once

#include <optional>
#include <string>

namespace syncscope {

// Milliseconds, or nullopt if `text` is not a positive duration.
std::optional<long long> parse_duration_ms(const std::string& text);

}  // namespace syncscope
