// Small string helpers for the policy parsers. (Debian's Abseil is built in
// C++14 mode, so its string functions take absl::string_view, not ours.)
#pragma once

#include <string_view>
#include <vector>

namespace syncscope {

inline std::string_view trim(std::string_view s) {
  const char* blanks = " \t\r\n";
  size_t first = s.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  size_t last = s.find_last_not_of(blanks);
  return s.substr(first, last - first + 1);
}

inline std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t end = s.find(separator, start);
    out.push_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

}  // namespace syncscope
