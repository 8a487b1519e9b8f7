// The library the injector tests load into inject_target. Its constructor
// proves it ran inside the target by appending "loaded <pid>" to the file
// named by the target's $INJECT_PROBE_FILE. $INJECT_PROBE_DELAY_MS makes it
// wait first, to hold dlopen open (signals arriving, timeouts).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>

__attribute__((constructor)) static void inject_probe_loaded() {
  if (const char* delay = std::getenv("INJECT_PROBE_DELAY_MS")) {
    long ms = std::atol(delay);
    timespec left{ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
  }
  const char* file = std::getenv("INJECT_PROBE_FILE");
  if (file == nullptr) return;
  int fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[64];
  int n = std::snprintf(line, sizeof(line), "loaded %d\n", static_cast<int>(getpid()));
  (void)!write(fd, line, static_cast<size_t>(n));
  close(fd);
}
