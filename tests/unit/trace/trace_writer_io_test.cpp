// The writer's I/O: short writes and signals lose nothing; an error is
// reported once and stops the writer without harming the process.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <thread>

#include "tests/unit/trace/trace_test_util.h"
#include "trace/reader.h"

namespace syncscope::testing {
namespace {

// Restores a signal's disposition when the test ends.
class SignalScope {
 public:
  SignalScope(int signo, void (*handler)(int)) : signo_(signo) {
    struct sigaction sa {};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: blocking writes return early
    sigaction(signo_, &sa, &old_);
  }
  ~SignalScope() { sigaction(signo_, &old_, nullptr); }

 private:
  int signo_;
  struct sigaction old_ {};
};

void ignore_signal(int) {}

TEST(TraceWriterIo, ShortWritesAndInterruptionsLoseNothing) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  SignalScope alarm(SIGALRM, ignore_signal);

  // The reader thread never takes SIGALRM: every interruption lands on the
  // writer, in the middle of write(2) on a full pipe (a short write or EINTR).
  sigset_t alarm_only, old_mask;
  sigemptyset(&alarm_only);
  sigaddset(&alarm_only, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &alarm_only, &old_mask);
  std::vector<unsigned char> received;
  std::thread drain([&] {
    unsigned char chunk[4096];
    int reads = 0;
    while (true) {
      ssize_t n = read(fds[0], chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      received.insert(received.end(), chunk, chunk + n);
      if (++reads % 16 == 0) usleep(200);  // slow consumer: the pipe fills up
    }
  });
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);

  itimerval every{{0, 100}, {0, 100}};
  setitimer(ITIMER_REAL, &every, nullptr);

  std::vector<Event> events(40000);
  for (size_t i = 0; i < events.size(); ++i) events[i] = make_event(1, i, i + 1);
  std::string error;
  TraceWriter w;
  bool opened = w.open_fd(fds[1], make_header(1), &error);
  bool flushed = opened;
  for (size_t at = 0; flushed && at < events.size(); at += 10000) {
    w.add_events(events.data() + at, 10000);
    flushed = w.flush(&error);
  }
  w.add_end(EndPayload{1, events.size(), 0, 0});
  flushed = flushed && w.flush(&error);

  itimerval off{};
  setitimer(ITIMER_REAL, &off, nullptr);
  w.close();  // closes fds[1]: the reader sees EOF
  drain.join();
  close(fds[0]);
  ASSERT_TRUE(opened) << error;
  ASSERT_TRUE(flushed) << error;

  ASSERT_EQ(received.size(), sizeof(FileHeader) + 4 * sizeof(RecordHeader) + events.size() * sizeof(Event) +
                                 sizeof(RecordHeader) + sizeof(EndPayload));
  std::string dir = temp_dir("eintr");
  std::filesystem::create_directories(dir);
  write_bytes(dir + "/x.sstrace", received);
  auto trace = read_trace_file(dir + "/x.sstrace");
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->complete) << trace->truncation;
  ASSERT_EQ(trace->events.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) ASSERT_TRUE(same_event(trace->events[i], events[i])) << i;
}

TEST(TraceWriterIo, WriteErrorIsReportedOnceAndStopsTheWriter) {
  SignalScope pipe_signal(SIGPIPE, SIG_IGN);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::string error;
  TraceWriter w;
  ASSERT_TRUE(w.open_fd(fds[1], make_header(1), &error)) << error;
  close(fds[0]);  // nobody will ever read: EPIPE
  w.add_thread(1, "main");
  EXPECT_FALSE(w.flush(&error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(w.is_open());
  // Later calls do nothing: no buffering, no second report.
  error.clear();
  Event e = make_event(1, 1, 2);
  w.add_events(&e, 1);
  w.add_thread(2, "other");
  EXPECT_EQ(w.buffered_bytes(), 0u);
  EXPECT_TRUE(w.flush(&error));
  EXPECT_TRUE(error.empty());
  w.close();
}

TEST(TraceWriterIo, HeaderWriteFailureIsAnOpenError) {
  int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (full < 0) GTEST_SKIP() << "no /dev/full";
  std::string error;
  TraceWriter w;
  EXPECT_FALSE(w.open_fd(full, make_header(1), &error));  // ENOSPC; the writer closes the descriptor
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(w.is_open());
  EXPECT_EQ(fcntl(full, F_GETFD), -1);

  int read_only = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(read_only, 0);
  error.clear();
  EXPECT_FALSE(w.open_fd(read_only, make_header(1), &error));  // EBADF
  EXPECT_FALSE(error.empty());
}

TEST(TraceWriterIo, ReopeningStartsAFreshFile) {
  std::string dir = temp_dir("reopen");
  std::string error;
  TraceWriter w;
  ASSERT_TRUE(w.open(dir, make_header(4), &error)) << error;
  std::string first = w.path();
  w.add_thread(1, "first");
  ASSERT_TRUE(w.open(dir, make_header(4), &error)) << error;  // flushes and closes the first
  EXPECT_NE(w.path(), first);
  w.add_thread(2, "second");
  w.close();
  auto a = read_trace_file(first);
  auto b = read_trace_file(w.path());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->thread_names.size(), 1u);
  EXPECT_EQ(a->thread_names.count(1), 1u);
  EXPECT_EQ(b->thread_names.size(), 1u);
  EXPECT_EQ(b->thread_names.count(2), 1u);
}

}  // namespace
}  // namespace syncscope::testing
