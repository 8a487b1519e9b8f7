// A process for the injector tests to load a library into. It prints "ready"
// once it runs its own code, then, by mode:
//   sleep N   one nanosleep of N seconds; prints "slept <ms>" (an injection
//             must not cut it short: the system call is restarted)
//   busy N    N seconds of floating-point sums (kept in SSE registers) and
//             malloc/free; prints "busy ok" or "busy MISMATCH" if the
//             registers changed under it
//   alloc N   N seconds of little but malloc/free (most stops land inside
//             libc), with a second, idle thread so that malloc really takes
//             its arena lock; checks each block's contents; prints "alloc ok"
//   read      one blocking read() of stdin; prints "read: <data>"
//   signal N  like sleep, with a SIGUSR1 handler; prints "usr1 <count>"
//   masked N  like sleep with every signal blocked and a SIGSEGV handler;
//             prints whether both are still as it set them
// and exits 7, a code nothing else here produces.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>

namespace {

volatile sig_atomic_t usr1_count = 0;

double now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int sleep_mode(int seconds) {
  double start = now_ms();
  timespec req{seconds, 0};
  if (nanosleep(&req, nullptr) != 0) {
    std::printf("sleep interrupted: %s\n", std::strerror(errno));
    return 3;
  }
  std::printf("slept %.0f\n", now_ms() - start);
  return 7;
}

int busy_mode(int seconds) {
  double end = now_ms() + seconds * 1e3;
  uint64_t isum = 0;
  double dsum = 0;
  while (now_ms() < end) {
    // Doubles are added in order (no -ffast-math), so dsum lives in an
    // xmm register through the loop and stays exactly equal to isum.
    for (int i = 0; i < 10000; ++i) {
      isum += static_cast<uint64_t>(i);
      dsum += i;
    }
    void* p = std::malloc(16 + isum % 4096);
    std::memset(p, 1, 16);
    std::free(p);
    if (dsum != static_cast<double>(isum)) {
      std::printf("busy MISMATCH %.0f != %llu\n", dsum, static_cast<unsigned long long>(isum));
      return 4;
    }
  }
  std::printf("busy ok\n");
  return 7;
}

int alloc_mode(int seconds) {
  // glibc's malloc skips locking while a process has one thread.
  std::thread idle([seconds] { std::this_thread::sleep_for(std::chrono::seconds(seconds)); });
  idle.detach();
  double end = now_ms() + seconds * 1e3;
  unsigned seed = 1;
  while (now_ms() < end) {
    for (int round = 0; round < 1000; ++round) {
      void* blocks[16];
      size_t sizes[16];
      for (int i = 0; i < 16; ++i) {
        seed = seed * 1103515245u + 12345u;
        sizes[i] = 1 + (seed >> 8) % 2048;
        blocks[i] = std::malloc(sizes[i]);
        std::memset(blocks[i], i, sizes[i]);
      }
      for (int i = 0; i < 16; ++i) {
        auto* b = static_cast<unsigned char*>(blocks[i]);
        if (b[0] != i || b[sizes[i] - 1] != i) {
          std::printf("alloc CORRUPT\n");
          return 4;
        }
        std::free(blocks[i]);
      }
    }
  }
  std::printf("alloc ok\n");
  return 7;
}

int read_mode() {
  char buf[256];
  ssize_t n = read(0, buf, sizeof(buf));
  if (n < 0) {
    std::printf("read failed: %s\n", std::strerror(errno));
    return 3;
  }
  std::printf("read: %.*s\n", static_cast<int>(n), buf);
  return 7;
}

int signal_mode(int seconds) {
  struct sigaction sa {};
  sa.sa_handler = [](int) { usr1_count = usr1_count + 1; };
  sigaction(SIGUSR1, &sa, nullptr);
  timespec left{seconds, 0};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
  std::printf("usr1 %d\n", static_cast<int>(usr1_count));
  return 7;
}

void segv_handler(int) {}

int masked_mode(int seconds) {
  struct sigaction sa {};
  sa.sa_handler = segv_handler;
  sigaction(SIGSEGV, &sa, nullptr);
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, nullptr);
  int code = sleep_mode(seconds);
  sigset_t now;
  sigprocmask(SIG_BLOCK, nullptr, &now);
  struct sigaction current {};
  sigaction(SIGSEGV, nullptr, &current);
  std::printf("mask %s, handler %s\n", sigismember(&now, SIGSEGV) && sigismember(&now, SIGUSR1) ? "kept" : "changed",
              current.sa_handler == segv_handler ? "kept" : "changed");
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  int seconds = argc > 2 ? std::atoi(argv[2]) : 1;
  std::printf("ready\n");
  std::fflush(stdout);
  int code = 2;
  if (mode == "sleep") code = sleep_mode(seconds);
  if (mode == "busy") code = busy_mode(seconds);
  if (mode == "alloc") code = alloc_mode(seconds);
  if (mode == "read") code = read_mode();
  if (mode == "signal") code = signal_mode(seconds);
  if (mode == "masked") code = masked_mode(seconds);
  std::fflush(stdout);
  return code;
}
