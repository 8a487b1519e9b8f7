// The client side of a recorder's control endpoint (preload/control_endpoint.h):
// one connection per attached process, one line per command and reply.
#pragma once

#include <sys/types.h>

#include <string>

#include <absl/status/statusor.h>

namespace syncscope {

class ControlConnection {
 public:
  ControlConnection() = default;
  ControlConnection(ControlConnection&& other) noexcept;
  ControlConnection& operator=(ControlConnection&& other) noexcept;
  ControlConnection(const ControlConnection&) = delete;
  ControlConnection& operator=(const ControlConnection&) = delete;
  ~ControlConnection();

  // Connects to @syncscope.<pid>; NotFound when the process has no endpoint
  // (not started with the preload, or not dormant).
  static absl::StatusOr<ControlConnection> connect(pid_t pid);

  // Sends `command` and returns the reply without "ok "; an "error ..." reply
  // is a FailedPrecondition with its text; silence past timeout_ms (another
  // syncscope holds the endpoint) is DeadlineExceeded.
  absl::StatusOr<std::string> request(const std::string& command, int timeout_ms);

  // True once the other side has closed (the process exited).
  bool peer_closed() const;
  pid_t pid() const { return pid_; }

 private:
  int fd_ = -1;
  pid_t pid_ = 0;
  std::string buffer_;
};

}  // namespace syncscope
