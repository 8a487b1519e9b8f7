// A descriptor the recorder opened inside someone else's process. The target
// may close it behind our back (close_range(3, ~0U) before exec or after a
// fork, a daemon's "close every fd") and reuse the number for a file of its
// own; from then on a write or close through the old number would hit the
// target's file. So each descriptor is moved above the numbers a program
// normally uses, is close-on-exec, and remembers what it is (device and
// inode): it is used or closed only while fstat still says so.
#pragma once

#include <sys/types.h>

namespace syncscope {

// Where adopted descriptors go: above what select() and most programs use,
// below the default soft limit of 1024 where that limit allows.
inline constexpr int kOwnedFdFloor = 700;

class OwnedFd {
 public:
  OwnedFd() = default;
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;

  // Takes `fd` (just opened by us): moves it to kOwnedFdFloor or above when
  // it can (close-on-exec either way) and records its identity. False when
  // fstat fails (the descriptor is then closed).
  bool adopt(int fd);
  // The descriptor while it is still the file we opened, else -1. One
  // fstat(2): call it before each batch of writes, never per record.
  int get() const;
  bool held() const { return fd_ >= 0; }
  // Whether `fd` is the file we adopted (a reopened path), even after forget().
  bool same_file(int fd) const;
  // Closes it if it is still ours; forgets it either way (a number the
  // target now uses is never closed).
  void close();
  // Forgets it without closing (it was taken away).
  void forget() { fd_ = -1; }
  // The raw number, for a check that must not change it (tests).
  int number() const { return fd_; }

 private:
  int fd_ = -1;
  bool identified_ = false;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

}  // namespace syncscope
