// Text for a terminal from strings a report did not write itself: a
// command line, thread and function names and file paths from the trace, a
// source line read from disk. Any of them can hold control characters that
// a terminal obeys (clear the screen, set the title, move the cursor, hide
// text). The text formats pass through here last: control characters are
// written as \xNN, except the newline and the report's own colour codes.
#pragma once

#include <string>

namespace syncscope {

// `text` with C0 controls (but '\n'), DEL and C1 controls (U+0080..U+009F
// as UTF-8) replaced by "\xNN"; the SGR colour sequences the text report
// writes (ESC [ digits/';' m) are kept when `keep_colours`.
std::string terminal_safe(const std::string& text, bool keep_colours);

}  // namespace syncscope
