#include "tools/control_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include <absl/status/status.h>

namespace syncscope {

ControlConnection::ControlConnection(ControlConnection&& other) noexcept
    : fd_(other.fd_), pid_(other.pid_), buffer_(std::move(other.buffer_)) {
  other.fd_ = -1;
}

ControlConnection& ControlConnection::operator=(ControlConnection&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    pid_ = other.pid_;
    buffer_ = std::move(other.buffer_);
    other.fd_ = -1;
  }
  return *this;
}

ControlConnection::~ControlConnection() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<ControlConnection> ControlConnection::connect(pid_t pid, uid_t uid) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(std::string("socket: ") + std::strerror(errno));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string name = control::socket_name(pid);
  std::memcpy(address.sun_path + 1, name.data(), name.size());
  socklen_t size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), size) != 0) {
    int err = errno;
    close(fd);
    if (err == ECONNREFUSED || err == ENOENT) {
      return absl::NotFoundError("process " + std::to_string(pid) + " has no syncscope control endpoint");
    }
    return absl::UnavailableError("cannot reach @syncscope." + std::to_string(pid) + ": " + std::strerror(err));
  }
  // Abstract names belong to nobody: another user may have bound this one
  // first (docs/security.md). Only the process itself, as its own user, is
  // talked to.
  ucred server{};
  socklen_t length = sizeof(server);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &server, &length) != 0 || server.pid != pid ||
      server.uid != uid) {
    close(fd);
    return absl::PermissionDeniedError("@syncscope." + std::to_string(pid) + " is held by process " +
                                       std::to_string(server.pid) + " (uid " + std::to_string(server.uid) +
                                       "), not by process " + std::to_string(pid) +
                                       " as uid " + std::to_string(uid) + ": refusing to talk to it");
  }
  ControlConnection connection;
  connection.fd_ = fd;
  connection.pid_ = pid;
  return connection;
}

absl::StatusOr<control::Message> ControlConnection::request(const control::Request& request, int timeout_ms) {
  if (fd_ < 0) return absl::FailedPreconditionError("not connected");
  const char* command = control::command_word(request.command);
  std::string line = control::encode(request) + "\n";
  if (send(fd_, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) {
    return absl::UnavailableError("process " + std::to_string(pid_) + " closed its control endpoint (it exited?)");
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string text = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      std::optional<control::Reply> reply = control::parse_reply(text);
      if (!reply) {
        return absl::InternalError("unexpected reply to '" + std::string(command) + "': " + text.substr(0, 200));
      }
      if (!reply->ok) return absl::FailedPreconditionError(reply->error);
      return std::move(reply->message);
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return absl::DeadlineExceededError("process " + std::to_string(pid_) + " did not answer '" +
                                         std::string(command) + "' (is another syncscope attached to it?)");
    }
    pollfd p{fd_, POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char chunk[512];
    ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::UnavailableError("process " + std::to_string(pid_) + " closed its control endpoint (it exited?)");
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

absl::StatusOr<control::HelloReply> ControlConnection::hello(int timeout_ms) {
  const std::string other_version =
      "the recorder in process " + std::to_string(pid_) + " speaks another version of the control protocol than " +
      "this syncscope (version " + std::to_string(control::kProtocolVersion) +
      "): attach with the syncscope that started it, or restart the process under this one";
  control::Request hello_request;  // kHello, the default
  auto reply = request(hello_request, timeout_ms);
  // A recorder older than the versioned protocol answers hello in a line
  // that does not parse.
  if (absl::IsInternal(reply.status())) return absl::FailedPreconditionError(other_version);
  if (!reply.ok()) return reply.status();
  control::HelloReply hello;
  if (!control::decode(*reply, &hello)) return absl::FailedPreconditionError(other_version);
  if (hello.protocol != control::kProtocolVersion) {
    return absl::FailedPreconditionError(other_version + " (it speaks version " + std::to_string(hello.protocol) +
                                         ", syncscope " + hello.version + ")");
  }
  return hello;
}

bool ControlConnection::peer_closed() const {
  if (fd_ < 0) return true;
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  if ((p.revents & (POLLHUP | POLLRDHUP | POLLERR)) != 0) return true;
  char byte;
  return recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

}  // namespace syncscope
