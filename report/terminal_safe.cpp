#include "report/terminal_safe.h"

#include <cstdio>

namespace syncscope {
namespace {

// The length of an SGR sequence (ESC '[' [0-9;]* 'm') at text[i], 0 if none.
size_t sgr_length(const std::string& text, size_t i) {
  if (i + 2 >= text.size() || text[i] != '\033' || text[i + 1] != '[') return 0;
  size_t j = i + 2;
  while (j < text.size() && ((text[j] >= '0' && text[j] <= '9') || text[j] == ';')) ++j;
  return j < text.size() && text[j] == 'm' ? j + 1 - i : 0;
}

void escape(unsigned char c, std::string* out) {
  char buffer[8];
  std::snprintf(buffer, sizeof(buffer), "\\x%02x", c);
  *out += buffer;
}

}  // namespace

std::string terminal_safe(const std::string& text, bool keep_colours) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (keep_colours) {
      if (size_t n = sgr_length(text, i); n > 0) {
        out.append(text, i, n);
        i += n - 1;
        continue;
      }
    }
    if ((c < 0x20 && c != '\n') || c == 0x7f) {
      escape(c, &out);
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      escape(static_cast<unsigned char>(text[i + 1]), &out);  // a C1 control, U+0080..U+009F
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace syncscope
