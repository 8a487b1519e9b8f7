#include "report/text_layout.h"

namespace syncscope {

size_t text_columns(const std::string& s) {
  size_t visible = 0;
  for (unsigned char c : s) visible += (c & 0xC0) != 0x80;  // UTF-8 continuation bytes take no column
  return visible;
}

std::string pad(const std::string& s, size_t width) {
  size_t visible = text_columns(s);
  return visible >= width ? s : s + std::string(width - visible, ' ');
}

std::string lpad(const std::string& s, size_t width) {
  size_t visible = text_columns(s);
  return visible >= width ? s : std::string(width - visible, ' ') + s;
}

std::string truncate_columns(const std::string& s, size_t width) {
  if (text_columns(s) <= width || width == 0) return text_columns(s) <= width ? s : std::string();
  std::string out;
  size_t columns = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    bool starts_character = (c & 0xC0) != 0x80;
    if (starts_character && columns == width - 1) break;
    columns += starts_character;
    out += s[i];
  }
  return out + "…";
}

std::vector<std::string> wrap_words(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t at = 0;
  while (at < text.size()) {
    size_t start = text.find_first_not_of(' ', at);
    if (start == std::string::npos) break;
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(start, end - start);
    if (!line.empty() && text_columns(line) + 1 + text_columns(word) > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    at = end;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace syncscope
