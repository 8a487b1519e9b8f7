#include "preload/core/log.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>

#include "preload/core/config.h"

namespace syncscope::preload {
namespace {

void emit(const char* format, va_list args) {
  char line[512];
  int n = std::snprintf(line, sizeof(line), "syncscope[%d]: ", static_cast<int>(getpid()));
  if (n < 0) return;
  int m = std::vsnprintf(line + n, sizeof(line) - n - 1, format, args);
  if (m < 0) return;
  size_t len = static_cast<size_t>(n) + static_cast<size_t>(m);
  if (len > sizeof(line) - 2) len = sizeof(line) - 2;
  line[len++] = '\n';
  // One write(2): lines from several processes never interleave mid-line.
  ssize_t ignored = write(STDERR_FILENO, line, len);
  (void)ignored;
}

}  // namespace

void log_warning(const char* format, ...) {
  if (config().log_level < 1) return;
  va_list args;
  va_start(args, format);
  emit(format, args);
  va_end(args);
}

void log_debug(const char* format, ...) {
  if (config().log_level < 2) return;
  va_list args;
  va_start(args, format);
  emit(format, args);
  va_end(args);
}

}  // namespace syncscope::preload
