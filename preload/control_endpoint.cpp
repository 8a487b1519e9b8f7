#include "preload/control_endpoint.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "preload/in_hook.h"
#include "preload/log.h"
#include "preload/session.h"
#include "trace/control_protocol.h"

namespace syncscope::preload {
namespace {

int g_listen_fd = -1;

// Reads one request line (without its newline) from `fd`; false on EOF or
// error. Requests are short: anything longer than the protocol allows is
// refused.
bool read_line(int fd, std::string* buffer, std::string* line) {
  for (;;) {
    size_t newline = buffer->find('\n');
    if (newline != std::string::npos) {
      *line = buffer->substr(0, newline);
      buffer->erase(0, newline + 1);
      return true;
    }
    if (buffer->size() > control::kMaxLineBytes) return false;
    char chunk[512];
    ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer->append(chunk, static_cast<size_t>(n));
  }
}

void reply(int fd, const control::Message& message) {
  std::string text = control::encode(message) + '\n';
  size_t sent = 0;
  while (sent < text.size()) {
    ssize_t n = send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

bool same_user(int fd) {
  ucred peer{};
  socklen_t length = sizeof(peer);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) return false;
  return peer.uid == getuid() || peer.uid == geteuid();
}

control::Message handle(const control::Request& request) {
  switch (request.command) {
    case control::Command::kHello:
      return session_describe();
    case control::Command::kStart:
      return session_start(request.output_dir, request.gpu_timeline, request.gpu_sampling);
    case control::Command::kFlush:
      return session_flush();
    case control::Command::kStop:
      return session_stop();
  }
  return control::error_reply("unknown command");
}

// Serves one client until it hangs up; a session it leaves running is stopped.
void serve(int client) {
  std::string buffer, line, error;
  bool started_here = false;
  while (read_line(client, &buffer, &line)) {
    std::optional<control::Request> request = control::parse_request(line, &error);
    if (!request) {
      reply(client, control::error_reply(error));
      continue;
    }
    control::Message answer = handle(*request);
    if (request->command == control::Command::kStart && answer.word == control::kOk) started_here = true;
    if (request->command == control::Command::kStop) started_here = false;
    reply(client, answer);
  }
  if (started_here && session_active()) {
    log_warning("attach: the syncscope client went away without stopping; recording stopped");
    session_stop();
  }
}

void* control_main(void*) {
  InHookScope in_hook;  // for the thread's life: nothing it does is the target's work
  for (;;) {
    int client = accept4(g_listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EBADF || errno == EINVAL) return nullptr;  // closed (fork child, shutdown)
      usleep(100000);
      continue;
    }
    if (!same_user(client)) {
      reply(client, control::error_reply("not permitted: the control endpoint serves only its own user"));
      // Closing with the client's command unread would reset the connection
      // and lose the reply: end our side, let it finish (briefly), then close.
      shutdown(client, SHUT_WR);
      timeval patience{0, 200000};
      setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof(patience));
      char sink[256];
      for (int reads = 0; reads < 16 && recv(client, sink, sizeof(sink), 0) > 0; ++reads) {
      }
    } else {
      serve(client);
    }
    close(client);
  }
}

}  // namespace

void control_endpoint_start() {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    log_warning("dormant: no control socket (%s); `syncscope attach` cannot reach this process", std::strerror(errno));
    return;
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  // Abstract namespace: the leading NUL; nothing on disk to clean up.
  const std::string name = control::socket_name(getpid());
  std::memcpy(address.sun_path + 1, name.data(), name.size());
  socklen_t size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 || listen(fd, 4) != 0) {
    log_warning("dormant: cannot bind @syncscope.%d (%s); `syncscope attach` cannot reach this process", getpid(),
                std::strerror(errno));
    close(fd);
    return;
  }
  g_listen_fd = fd;
  // The thread must never receive the target's signals.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  int rc = pthread_create(&thread, nullptr, control_main, nullptr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) {
    log_warning("dormant: cannot start the control thread (%s)", std::strerror(rc));
    close(fd);
    g_listen_fd = -1;
    return;
  }
  pthread_detach(thread);
  pthread_setname_np(thread, "syncscope-ctl");
  log_debug("dormant: control endpoint @syncscope.%d", getpid());
}

void control_endpoint_after_fork_child() {
  if (g_listen_fd >= 0) {
    close(g_listen_fd);
    g_listen_fd = -1;
  }
}

}  // namespace syncscope::preload
