// inject_library against real processes (inject_target), each in a different
// state when the injection comes: asleep in a system call, computing and
// allocating, blocked on a pipe, receiving a signal meanwhile. Each test
// checks that the library ran in the target and that the target went on as
// if nothing had happened: its own output and its own exit code, 7.
#include "inject/ptrace_inject.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace syncscope::inject {
namespace {

using namespace std::chrono_literals;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A running inject_target with pipes on its stdin and stdout, started and
// read up to its "ready" line.
class Target {
 public:
  Target(const std::vector<std::string>& args, const std::vector<std::string>& extra_env) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) std::abort();
    std::vector<std::string> argv_s{INJECT_TARGET_BIN};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<std::string> env_s(extra_env);
    for (char** e = environ; *e != nullptr; ++e) env_s.push_back(*e);
    std::vector<char*> argv, envp;
    for (auto& a : argv_s) argv.push_back(a.data());
    for (auto& e : env_s) envp.push_back(e.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[0]), close(in[1]), close(out[0]), close(out[1]);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    stdin_ = in[1];
    stdout_ = out[0];
    while (output_.find("ready\n") == std::string::npos && read_some(10000)) {
    }
    ready_ = output_.find("ready\n") != std::string::npos;
  }
  ~Target() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (stdin_ >= 0) close(stdin_);
    close(stdout_);
  }
  pid_t pid() const { return pid_; }
  bool ready() const { return ready_; }

  // The state letter of /proc/PID/stat: R running, S sleeping, T stopped,
  // t stopped by a tracer.
  char state() const {
    std::string stat = read_file("/proc/" + std::to_string(pid_) + "/stat");
    size_t paren = stat.rfind(')');
    return paren != std::string::npos && stat.size() > paren + 2 ? stat[paren + 2] : '?';
  }
  // Waits (up to 2 s) until the target is in `wanted`: 'S' is its blocking call.
  void wait_for_state(char wanted = 'S') {
    for (int i = 0; i < 200 && state() != wanted; ++i) std::this_thread::sleep_for(10ms);
  }
  void wait_until_blocked() { wait_for_state('S'); }
  void write_stdin(const std::string& data) {
    ASSERT_EQ(write(stdin_, data.data(), data.size()), ssize_t(data.size()));
  }
  void close_stdin() {
    close(stdin_);
    stdin_ = -1;
  }
  // Reads stdout to its end and reaps the target: its exit code, or
  // 128 + signal if killed. *output is what it printed after "ready".
  int finish(std::string* output) {
    while (read_some(30000)) {
    }
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    *output = output_.substr(output_.find("ready\n") + 6);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  bool read_some(int timeout_ms) {
    pollfd p{stdout_, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) <= 0) return false;
    char buf[512];
    ssize_t n = read(stdout_, buf, sizeof(buf));
    if (n <= 0) return false;
    output_.append(buf, static_cast<size_t>(n));
    return true;
  }
  pid_t pid_ = -1;
  int stdin_ = -1;
  int stdout_ = -1;
  bool ready_ = false;
  std::string output_;
};

// The number after `prefix` in the target's output, or -1.
long value_after(const std::string& output, const std::string& prefix) {
  size_t at = output.find(prefix);
  return at == std::string::npos ? -1 : std::atol(output.c_str() + at + prefix.size());
}

class Inject : public ::testing::Test {
 protected:
  void SetUp() override {
    probe_ = ::testing::TempDir() + "inject_probe_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::remove(probe_.c_str());
  }
  void TearDown() override { std::remove(probe_.c_str()); }
  std::vector<std::string> env(const std::string& extra = "") const {
    std::vector<std::string> e{"INJECT_PROBE_FILE=" + probe_};
    if (!extra.empty()) e.push_back(extra);
    return e;
  }
  std::string loaded_line(pid_t pid) const { return "loaded " + std::to_string(pid) + "\n"; }
  // Injects the probe library and checks that its constructor ran in the target.
  void inject_probe(pid_t pid, int timeout_ms = 10000) {
    auto handle = inject_library(pid, INJECT_PROBE_LIB, timeout_ms);
    ASSERT_TRUE(handle.ok()) << handle.status();
    EXPECT_NE(*handle, 0u);
    EXPECT_EQ(read_file(probe_), loaded_line(pid));
  }
  std::string probe_;
};

#if defined(__x86_64__)

TEST_F(Inject, SleepingTargetSleepsItsFullTime) {
  Target t({"sleep", "2"}, env());
  ASSERT_TRUE(t.ready());
  t.wait_until_blocked();
  ASSERT_NO_FATAL_FAILURE(inject_probe(t.pid()));
  std::string out;
  EXPECT_EQ(t.finish(&out), 7) << out;
  // nanosleep was restarted for its remaining time, not cut short (EINTR).
  EXPECT_GE(value_after(out, "slept "), 2000) << out;
}

TEST_F(Inject, BusyTargetKeepsItsRegistersAndHeap) {
  Target t({"busy", "2"}, env());
  ASSERT_TRUE(t.ready());
  std::this_thread::sleep_for(200ms);
  ASSERT_NO_FATAL_FAILURE(inject_probe(t.pid()));
  std::string out;
  EXPECT_EQ(t.finish(&out), 7) << out;
  EXPECT_EQ(out, "busy ok\n");
}

TEST_F(Inject, AllocatingTargetIsStoppedOutsideMalloc) {
  // Most of its time is in malloc/free: the injector must let it run on
  // until it stops outside libc, then dlopen's own mallocs are safe.
  Target t({"alloc", "2"}, env());
  ASSERT_TRUE(t.ready());
  std::this_thread::sleep_for(200ms);
  for (int i = 0; i < 20; ++i) {
    auto handle = inject_library(t.pid(), INJECT_PROBE_LIB, 1000);
    ASSERT_TRUE(handle.ok()) << handle.status();
    EXPECT_NE(*handle, 0u);
  }
  EXPECT_EQ(read_file(probe_), loaded_line(t.pid()));
  std::string out;
  EXPECT_EQ(t.finish(&out), 7) << out;
  EXPECT_EQ(out, "alloc ok\n");
}

TEST_F(Inject, BlockedReadGetsTheDataWrittenAfterwards) {
  Target t({"read"}, env());
  ASSERT_TRUE(t.ready());
  t.wait_until_blocked();
  ASSERT_NO_FATAL_FAILURE(inject_probe(t.pid()));
  t.write_stdin("hello through the pipe");
  t.close_stdin();
  std::string out;
  EXPECT_EQ(t.finish(&out), 7) << out;
  EXPECT_EQ(out, "read: hello through the pipe\n");
}

TEST_F(Inject, SignalArrivingDuringDlopenIsDeliveredAfterwards) {
  // The constructor takes 600 ms; SIGUSR1 comes in the middle of it.
  Target t({"signal", "2"}, env("INJECT_PROBE_DELAY_MS=600"));
  ASSERT_TRUE(t.ready());
  t.wait_until_blocked();
  absl::StatusOr<uint64_t> handle;
  std::thread injector([&] { handle = inject_library(t.pid(), INJECT_PROBE_LIB); });
  std::this_thread::sleep_for(250ms);
  kill(t.pid(), SIGUSR1);
  injector.join();
  ASSERT_TRUE(handle.ok()) << handle.status();
  EXPECT_EQ(read_file(probe_), loaded_line(t.pid()));
  std::string out;
  EXPECT_EQ(t.finish(&out), 7) << out;
  EXPECT_EQ(out, "usr1 1\n");
}

TEST_F(Inject, BlockedSignalsAndFaultHandlerAreLeftAlone) {
  // The injected call ends in a SIGSEGV; had it been blocked, the kernel
  // would have reset the target's SIGSEGV handler to SIG_DFL.
  Target t({"masked", "1"}, env());
  ASSERT_TRUE(t.ready());
  t.wait_until_blocked();
  ASSERT_NO_FATAL_FAILURE(inject_probe(t.pid()));
  std::string out;
  EXPECT_EQ(t.finish(&out), 7) << out;
  EXPECT_NE(out.find("mask kept, handler kept"), std::string::npos) << out;
  EXPECT_GE(value_after(out, "slept "), 1000) << out;
}

TEST_F(Inject, SecondInjectionReturnsTheSameHandle) {
  Target t({"sleep", "2"}, env());
  ASSERT_TRUE(t.ready());
  t.wait_until_blocked();
  auto first = inject_library(t.pid(), INJECT_PROBE_LIB);
  auto second = inject_library(t.pid(), INJECT_PROBE_LIB);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(read_file(probe_), loaded_line(t.pid()));  // the constructor ran once
  std::string out;
  EXPECT_EQ(t.finish(&out), 7) << out;
  EXPECT_GE(value_after(out, "slept "), 2000) << out;
}

TEST_F(Inject, MissingLibraryReportsDlerror) {
  Target t({"sleep", "1"}, env());
  ASSERT_TRUE(t.ready());
  t.wait_until_blocked();
  auto handle = inject_library(t.pid(), "/nonexistent/dir/libnope.so");
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(handle.status().message().find(
                "/nonexistent/dir/libnope.so: cannot open shared object file: No such file or directory"),
            std::string::npos)
      << handle.status();
  std::string out;
  EXPECT_EQ(t.finish(&out), 7) << out;
  EXPECT_GE(value_after(out, "slept "), 1000) << out;
}

TEST_F(Inject, DlopenThatNeverReturnsTimesOutAndTheTargetGoesOn) {
  Target t({"sleep", "2"}, env("INJECT_PROBE_DELAY_MS=4000"));
  ASSERT_TRUE(t.ready());
  t.wait_until_blocked();
  auto start = std::chrono::steady_clock::now();
  auto handle = inject_library(t.pid(), INJECT_PROBE_LIB, 500);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(handle.status().message().find("half-loaded"), std::string::npos) << handle.status();
  std::string out;
  EXPECT_EQ(t.finish(&out), 7) << out;
  EXPECT_GE(value_after(out, "slept "), 2000) << out;
  EXPECT_EQ(read_file(probe_), "");  // the constructor never got to write
}

TEST_F(Inject, NonexistentProcess) {
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  auto handle = inject_library(gone, INJECT_PROBE_LIB);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(handle.status().message().find("no such process"), std::string::npos) << handle.status();
}

TEST_F(Inject, AlreadyTracedTargetNamesTheOtherTracer) {
  Target t({"sleep", "1"}, env());
  ASSERT_TRUE(t.ready());
  ASSERT_EQ(ptrace(PTRACE_SEIZE, t.pid(), nullptr, nullptr), 0);
  auto handle = inject_library(t.pid(), INJECT_PROBE_LIB);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(handle.status().message().find("another tracer (TracerPid " + std::to_string(getpid())), std::string::npos)
      << handle.status();
  // Let go of it again (detaching needs a stop) and check it was not harmed.
  ASSERT_EQ(ptrace(PTRACE_INTERRUPT, t.pid(), nullptr, nullptr), 0);
  int status = 0;
  ASSERT_EQ(waitpid(t.pid(), &status, __WALL), t.pid());
  ASSERT_EQ(ptrace(PTRACE_DETACH, t.pid(), nullptr, nullptr), 0);
  std::string out;
  EXPECT_EQ(t.finish(&out), 7) << out;
  EXPECT_EQ(read_file(probe_), "");
}

TEST_F(Inject, StoppedTargetStaysStopped) {
  // Stopped by SIGSTOP (as by a shell's ^Z): the injected call runs, and the
  // kernel puts the thread back into the group stop at detach.
  Target t({"sleep", "1"}, env());
  ASSERT_TRUE(t.ready());
  t.wait_until_blocked();
  kill(t.pid(), SIGSTOP);
  t.wait_for_state('T');
  ASSERT_EQ(t.state(), 'T');
  ASSERT_NO_FATAL_FAILURE(inject_probe(t.pid()));
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(t.state(), 'T');
  kill(t.pid(), SIGCONT);
  std::string out;
  EXPECT_EQ(t.finish(&out), 7) << out;
  EXPECT_GE(value_after(out, "slept "), 1000) << out;
}

TEST_F(Inject, UnprivilegedInjectorIsToldWhy) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to drop to another user";
  Target t({"sleep", "1"}, env());
  ASSERT_TRUE(t.ready());
  // A child running as nobody may not trace root's process: EPERM.
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  pid_t child = fork();
  if (child == 0) {
    close(report[0]);
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(1);
    auto handle = inject_library(t.pid(), INJECT_PROBE_LIB);
    std::string text = handle.ok() ? "ok" : std::string(handle.status().ToString());
    (void)!write(report[1], text.data(), text.size());
    _exit(0);
  }
  close(report[1]);
  std::string text;
  char buf[1024];
  for (ssize_t n; (n = read(report[0], buf, sizeof(buf))) > 0;) text.append(buf, static_cast<size_t>(n));
  close(report[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "could not drop privileges";
  EXPECT_NE(text.find("PERMISSION_DENIED"), std::string::npos) << text;
  EXPECT_NE(text.find("not permitted to ptrace process " + std::to_string(t.pid())), std::string::npos) << text;
  EXPECT_NE(text.find("--cap-add=SYS_PTRACE"), std::string::npos) << text;
  if (access("/proc/sys/kernel/yama/ptrace_scope", R_OK) == 0) {
    EXPECT_NE(text.find("kernel.yama.ptrace_scope is"), std::string::npos) << text;
  }
  std::string out;
  EXPECT_EQ(t.finish(&out), 7) << out;
}

TEST_F(Inject, InvalidArguments) {
  EXPECT_EQ(inject_library(0, INJECT_PROBE_LIB).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(inject_library(getpid(), INJECT_PROBE_LIB).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(inject_library(1, "").status().code(), absl::StatusCode::kInvalidArgument);
}

#else

TEST_F(Inject, OtherArchitecturesAreRefused) {
  auto handle = inject_library(getppid(), INJECT_PROBE_LIB);
  ASSERT_FALSE(handle.ok());
  EXPECT_NE(handle.status().message().find("x86-64 only"), std::string::npos) << handle.status();
}

#endif

}  // namespace
}  // namespace syncscope::inject
