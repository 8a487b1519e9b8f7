// The launcher's end of the recorder's status channel
// (trace/recording_status.h): an in-memory file the recorded processes
// append their problems to, read once the command has exited.
#pragma once

#include <string>

namespace syncscope {

class StatusChannel {
 public:
  StatusChannel() = default;
  ~StatusChannel();
  StatusChannel(const StatusChannel&) = delete;
  StatusChannel& operator=(const StatusChannel&) = delete;

  // Creates the file (close-on-exec until inherit()); false with *error.
  bool open(std::string* error);
  bool is_open() const { return fd_ >= 0; }
  // The value of SYNCSCOPE_STATUS_FD for the command ("" when not open).
  std::string environment_value() const;
  // In the forked child, just before exec: let the command inherit the
  // descriptor. Async-signal-safe.
  void inherit() const;
  // Everything written so far.
  std::string read_all() const;

 private:
  int fd_ = -1;
  unsigned long long dev_ = 0, ino_ = 0;
};

}  // namespace syncscope
