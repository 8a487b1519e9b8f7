// Column layout for the terminal report: widths counted in characters (µ
// and … are one column though several bytes), padding, truncation and word
// wrapping to the screen's width.
#pragma once

#include <string>
#include <vector>

namespace syncscope {

constexpr size_t kScreenColumns = 100;  // what one finding is laid out for

size_t text_columns(const std::string& s);
std::string pad(const std::string& s, size_t width);   // left-aligned
std::string lpad(const std::string& s, size_t width);  // right-aligned
// At most `width` columns, the cut marked with "…".
std::string truncate_columns(const std::string& s, size_t width);
// Words of `text` in lines of at most `width` columns; a word longer than
// that gets a line of its own.
std::vector<std::string> wrap_words(const std::string& text, size_t width);

}  // namespace syncscope
