// Sizes on the command line: "500M", "2G", "1.5GiB", "800MB", "4096K";
// a bare number is MiB ("512").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace syncscope {

// Bytes, or nullopt if `text` is not a positive size.
std::optional<uint64_t> parse_byte_size(const std::string& text);

}  // namespace syncscope
