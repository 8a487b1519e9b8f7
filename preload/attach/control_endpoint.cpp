#include "preload/attach/control_endpoint.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "preload/core/in_hook.h"
#include "preload/core/log.h"
#include "preload/attach/session.h"
#include "trace/control_protocol.h"
#include "trace/owned_fd.h"

namespace syncscope::preload {
namespace {

// Checked before each use: a program that closes every descriptor may reuse
// the number for a socket of its own, whose connections are never ours.
OwnedFd g_listen;
pthread_t g_thread{};
bool g_thread_running = false;  // started and not joined (changed only by start, stop and the fork child)

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
  // Root may ptrace the process anyway: refusing it would protect nothing.
  return peer.uid == getuid() || peer.uid == geteuid() || peer.uid == 0;
}

// How long a connection may take to say its first line (syncscope attach
// says hello at once), and how long a refused one is given to finish: one
// thread serves every connection, and a silent or dripping one must never
// hold the owner's command back for long.
constexpr int kFirstLineMs = 2000;
constexpr int kRefusalMs = 20;

void set_receive_timeout(int fd, int ms) {
  timeval t{ms / 1000, (ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof(t));
}

// Another user's connection: told why, then closed within kRefusalMs.
// Closing with the client's command unread would reset the connection and
// lose the reply: end our side, read what it sent (briefly), then close.
void refuse(int client) {
  reply(client, control::error_reply("not permitted: the control endpoint serves only its own user (and root)"));
  shutdown(client, SHUT_WR);
  timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  char sink[256];
  for (;;) {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const long spent_ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (spent_ms >= kRefusalMs) return;
    pollfd p{client, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(kRefusalMs - spent_ms)) <= 0) return;
    if (recv(client, sink, sizeof(sink), MSG_DONTWAIT) <= 0) return;
  }
}

// Serves one client until it hangs up; a session it leaves running is stopped.
void serve(int client) {
  std::string buffer, line, error;
  bool started_here = false;
  set_receive_timeout(client, kFirstLineMs);
  bool first = true;
  while (read_line(client, &buffer, &line)) {
    if (first) {
      set_receive_timeout(client, 0);  // a session may stay quiet for hours: no limit after the first line
      first = false;
    }
    std::optional<control::Request> request = control::parse_request(line, &error);
    if (!request) {
      reply(client, control::error_reply(error));
      continue;
    }
    control::Message answer = session_handle(*request);
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
    const int listen_fd = g_listen.get();
    if (listen_fd < 0) {
      log_warning("the program closed the control socket; `syncscope attach` cannot reach this process any more");
      return nullptr;
    }
    int client = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EBADF || errno == EINVAL) return nullptr;  // shut down (control_endpoint_stop) or closed
      usleep(100000);
      continue;
    }
    if (!same_user(client)) {
      refuse(client);
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
  if (!g_listen.adopt(fd)) {
    log_warning("dormant: control socket unusable (%s)", std::strerror(errno));
    return;
  }
  // The thread must never receive the target's signals.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  int rc = pthread_create(&thread, nullptr, control_main, nullptr);  // joinable: control_endpoint_stop
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) {
    log_warning("dormant: cannot start the control thread (%s)", std::strerror(rc));
    g_listen.close();
    return;
  }
  g_thread = thread;
  g_thread_running = true;
  pthread_setname_np(thread, "syncscope-ctl");
  log_debug("dormant: control endpoint @syncscope.%d", getpid());
}

bool control_endpoint_stop(int timeout_ms) {
  if (!g_thread_running) return true;
  // A shut-down listening socket fails the accept(2) the thread waits in
  // (EINVAL), now and from then on: the thread returns.
  const int listen_fd = g_listen.get();
  if (listen_fd < 0) {
    // The program closed it: no descriptor left to shut down, and the thread
    // may wait in accept(2) until exit. Never wait for it.
    g_listen.forget();
    return false;
  }
  shutdown(listen_fd, SHUT_RDWR);
  timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += timeout_ms / 1000;
  deadline.tv_nsec += static_cast<long>(timeout_ms % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000L;
  }
  if (pthread_timedjoin_np(g_thread, nullptr, &deadline) != 0) {
    log_warning("the control endpoint is serving a client; it closes when that client goes");
    return false;  // the socket is shut down: the thread returns after its client, unjoined
  }
  g_thread_running = false;
  g_listen.close();
  log_debug("control endpoint @syncscope.%d closed", getpid());
  return true;
}

void control_endpoint_after_fork_child() {
  g_thread_running = false;  // not in this process
  g_listen.close();
}

}  // namespace syncscope::preload
