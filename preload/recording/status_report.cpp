#include "preload/recording/status_report.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>

#include "preload/core/config.h"
#include "trace/recording_status.h"

namespace syncscope::preload {
namespace {

std::atomic<int> g_lines{0};

bool is_channel(int fd, const Config& c) {
  struct stat st;
  return fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_dev) == c.status_dev &&
         static_cast<uint64_t>(st.st_ino) == c.status_ino;
}

// The inherited descriptor when it is still the channel. A process whose
// parent closed it before exec (Python's subprocess closes every descriptor
// by default) reopens the launcher's; *owned says the caller must close it.
int channel_fd(const Config& c, bool* owned) {
  *owned = false;
  if (is_channel(c.status_fd, c)) return c.status_fd;
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/fd/%d", c.status_owner, c.status_fd);
  int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  if (!is_channel(fd, c)) {  // the launcher is gone and its pid reused
    close(fd);
    return -1;
  }
  *owned = true;
  return fd;
}

}  // namespace

void report_status(const char* kind, const char* detail_format, ...) {
  const Config& c = config();
  if (c.status_fd < 0) return;
  if (g_lines.fetch_add(1, std::memory_order_relaxed) >= kMaxStatusLinesPerProcess) return;
  int saved_errno = errno;  // callers may still want theirs
  char line[4600];
  int n = std::snprintf(line, sizeof(line), "%d %s ", static_cast<int>(getpid()), kind);
  if (n < 0) return;
  va_list args;
  va_start(args, detail_format);
  int m = std::vsnprintf(line + n, sizeof(line) - n - 1, detail_format, args);
  va_end(args);
  if (m < 0) m = 0;
  size_t len = static_cast<size_t>(n) + static_cast<size_t>(m);
  if (len > sizeof(line) - 2) len = sizeof(line) - 2;
  // One line per report, whatever the detail holds (a path may contain a newline).
  for (size_t i = 0; i < len; ++i) {
    if (line[i] == '\n' || line[i] == '\r') line[i] = ' ';
  }
  line[len++] = '\n';
  bool owned = false;
  int fd = channel_fd(c, &owned);
  if (fd >= 0) {
    ssize_t ignored = write(fd, line, len);  // a lost line loses evidence, never the target
    (void)ignored;
    if (owned) close(fd);
  }
  errno = saved_errno;
}

void status_after_fork_child() { g_lines.store(0, std::memory_order_relaxed); }

}  // namespace syncscope::preload
