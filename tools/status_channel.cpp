#include "tools/status_channel.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace syncscope {

StatusChannel::~StatusChannel() {
  if (fd_ >= 0) close(fd_);
}

bool StatusChannel::open(std::string* error) {
  // memfd: no disk behind it, so the disk filling up that it must report on
  // cannot silence it, and a write never blocks.
  int fd = memfd_create("syncscope-status", MFD_CLOEXEC);
  if (fd < 0) {
    *error = std::string("memfd_create: ") + std::strerror(errno);
    return false;
  }
  struct stat st;
  // O_APPEND on the shared description: every process's line lands whole at the end.
  if (fcntl(fd, F_SETFL, O_APPEND) != 0 || fstat(fd, &st) != 0) {
    *error = std::string("status channel: ") + std::strerror(errno);
    close(fd);
    return false;
  }
  fd_ = fd;
  dev_ = static_cast<unsigned long long>(st.st_dev);
  ino_ = static_cast<unsigned long long>(st.st_ino);
  return true;
}

std::string StatusChannel::environment_value() const {
  if (fd_ < 0) return "";
  return std::to_string(fd_) + ":" + std::to_string(getpid()) + ":" + std::to_string(dev_) + ":" + std::to_string(ino_);
}

void StatusChannel::inherit() const {
  if (fd_ >= 0) fcntl(fd_, F_SETFD, 0);
}

std::string StatusChannel::read_all() const {
  std::string text;
  if (fd_ < 0) return text;
  char buffer[65536];
  off_t at = 0;
  while (true) {
    ssize_t n = pread(fd_, buffer, sizeof(buffer), at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
    at += n;
  }
  return text;
}

}  // namespace syncscope
