// Diagnostics from inside the target: one line to stderr, prefixed, never more
// than the user asked for (SYNCSCOPE_LOG). No allocation, no stdio locks.
#pragma once

namespace syncscope::preload {

void log_warning(const char* format, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace syncscope::preload
