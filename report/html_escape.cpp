#include "report/html_escape.h"

#include <cstdint>

namespace syncscope {
namespace {

// Length of the valid UTF-8 sequence at text[i], 0 when it is not one
// (overlong forms, surrogates and code points past U+10FFFF included).
size_t utf8_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  uint32_t code = 0;
  if ((c & 0xe0) == 0xc0) {
    n = 2;
    code = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3;
    code = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4;
    code = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3f);
  }
  static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kSmallest[n] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return n;
}

// Both escapes: XML 1.0 also allows no control characters but tab, newline
// and return (dropped).
std::string markup_escape(std::string_view text, bool xml) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size();) {
    switch (text[i]) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default: {
        const auto c = static_cast<unsigned char>(text[i]);
        if (xml && c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          ++i;
          continue;
        }
        const size_t n = utf8_length(text, i);
        if (n == 0) {
          out += "\xef\xbf\xbd";  // U+FFFD
          ++i;
        } else {
          out.append(text.substr(i, n));
          i += n;
        }
        continue;
      }
    }
    ++i;
  }
  return out;
}

}  // namespace

std::string html_escape(std::string_view text) { return markup_escape(text, false); }
std::string xml_escape(std::string_view text) { return markup_escape(text, true); }

}  // namespace syncscope
