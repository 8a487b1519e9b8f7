// The client side of a recorder's control endpoint (preload/attach/control_endpoint.h):
// one connection per attached process, one line per request and reply, in
// the control protocol (trace/control_protocol.h).
#pragma once

#include <sys/types.h>

#include <string>

#include <absl/status/statusor.h>

#include "trace/control_protocol.h"

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
  // (not started with the preload, or not dormant). The socket must be held
  // by that process itself, running as `uid` (SO_PEERCRED): an abstract
  // name belongs to whoever binds it first (docs/security.md).
  static absl::StatusOr<ControlConnection> connect(pid_t pid, uid_t uid);

  // Sends `request` and returns the "ok" reply; an "error" reply is a
  // FailedPrecondition with its reason; silence past timeout_ms (another
  // syncscope holds the endpoint) is DeadlineExceeded; a reply that is
  // neither is Internal.
  absl::StatusOr<control::Message> request(const control::Request& request, int timeout_ms);

  // hello, and a check that the recorder speaks this protocol version
  // (FailedPrecondition naming both versions when it does not).
  absl::StatusOr<control::HelloReply> hello(int timeout_ms);

  // True once the other side has closed (the process exited).
  bool peer_closed() const;
  pid_t pid() const { return pid_; }

 private:
  int fd_ = -1;
  pid_t pid_ = 0;
  std::string buffer_;
};

}  // namespace syncscope
