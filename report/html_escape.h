// Text from a trace (paths, source lines, symbol names, command lines) made
// safe inside an HTML page: markup characters escaped and bytes that are not
// UTF-8 replaced, so a page always renders what was recorded and nothing
// from the trace can open a tag.
#pragma once

#include <string>
#include <string_view>

namespace syncscope {

// &, <, >, " and ' as entities; each invalid UTF-8 sequence as U+FFFD.
std::string html_escape(std::string_view text);
// The same for XML (JUnit): control characters XML 1.0 forbids (all below
// 0x20 but tab, newline and return) dropped as well.
std::string xml_escape(std::string_view text);

}  // namespace syncscope
