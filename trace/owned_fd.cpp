#include "trace/owned_fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace syncscope {

bool OwnedFd::adopt(int fd) {
  close();
  if (fd < 0) return false;
  int high = fcntl(fd, F_DUPFD_CLOEXEC, kOwnedFdFloor);
  if (high >= 0) {
    ::close(fd);
    fd = high;
  } else {
    fcntl(fd, F_SETFD, FD_CLOEXEC);  // no room up there (a low RLIMIT_NOFILE): keep the number we have
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    ::close(fd);
    return false;
  }
  fd_ = fd;
  identified_ = true;
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  return true;
}

int OwnedFd::get() const {
  if (fd_ < 0) return -1;
  struct stat st;
  if (fstat(fd_, &st) != 0 || st.st_dev != dev_ || st.st_ino != ino_) return -1;
  return fd_;
}

bool OwnedFd::same_file(int fd) const {
  struct stat st;
  return identified_ && fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_;
}

void OwnedFd::close() {
  if (get() >= 0) ::close(fd_);  // never retried on EINTR: the descriptor is gone either way
  fd_ = -1;
}

}  // namespace syncscope
