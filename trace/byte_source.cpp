#include "trace/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace syncscope {

absl::StatusOr<std::unique_ptr<FileBytes>> FileBytes::open(const std::string& path) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int err = errno;
    std::string message = absl::StrCat("cannot open trace ", path, ": ", std::strerror(err));
    if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(message);
    if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(message);
    return absl::UnavailableError(message);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("not a syncscope trace: ", path, " (not a regular file)"));
  }
  return std::unique_ptr<FileBytes>(new FileBytes(fd, path, static_cast<uint64_t>(st.st_size)));
}

FileBytes::~FileBytes() { ::close(fd_); }

bool FileBytes::fetch(uint64_t offset, size_t n) {
  if (offset >= base_ && offset - base_ <= length_ && n <= length_ - (offset - base_)) return true;
  // A window of kWindowBytes (or n), no larger than what is left of the
  // file as opened plus a little (it may have grown): a small trace costs
  // a small buffer.
  const uint64_t left = size_ > offset ? size_ - offset : 0;
  const size_t capacity = static_cast<size_t>(std::max<uint64_t>(n, std::min<uint64_t>(kWindowBytes, left + 4096)));
  std::unique_ptr<unsigned char[]> next(new unsigned char[capacity]);
  // Keep what the window already holds from `offset` on, then read the rest.
  size_t have = 0;
  if (offset >= base_ && offset - base_ < length_) {
    have = static_cast<size_t>(length_ - (offset - base_));
    std::memcpy(next.get(), window_.get() + (offset - base_), have);
  }
  while (have < capacity) {
    const ssize_t got = ::pread(fd_, next.get() + have, capacity - have, static_cast<off_t>(offset + have));
    if (got < 0) {
      if (errno == EINTR) continue;
      error_ = absl::StrCat("cannot read trace ", path_, ": ", std::strerror(errno));
      break;
    }
    if (got == 0) break;  // end of file (as far as it is now)
    have += static_cast<size_t>(got);
  }
  window_ = std::move(next);
  base_ = offset;
  length_ = have;
  return n <= length_;
}

}  // namespace syncscope
