// Test-only LD_PRELOAD shim: a disk that fills up under the recorder.
// Writes to files below $SYNCSCOPE_TEST_FULL_DIR stop with ENOSPC once
// $SYNCSCOPE_TEST_FULL_AFTER bytes (per process) have gone there; the write
// that crosses the line is cut short first, as on a real disk. Loaded after
// libsyncscope.so (which defines no write), it stands between the recorder's
// write(2) calls and libc's; every other write passes straight through.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t g_written;  // bytes that reached the "disk", this process

static int below_full_dir(int fd) {
  const char* dir = getenv("SYNCSCOPE_TEST_FULL_DIR");
  if (dir == NULL || *dir == '\0') return 0;
  char link[64], target[4096];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof(target) - 1);
  if (n <= 0) return 0;
  target[n] = '\0';
  size_t len = strlen(dir);
  return strncmp(target, dir, len) == 0 && target[len] == '/';
}

ssize_t write(int fd, const void* data, size_t count) {
  static ssize_t (*real_write)(int, const void*, size_t);
  if (real_write == NULL) real_write = (ssize_t(*)(int, const void*, size_t))dlsym(RTLD_NEXT, "write");
  if (!below_full_dir(fd)) return real_write(fd, data, count);
  const char* after = getenv("SYNCSCOPE_TEST_FULL_AFTER");
  size_t limit = after != NULL ? strtoull(after, NULL, 10) : 0;
  size_t used = __atomic_load_n(&g_written, __ATOMIC_RELAXED);
  if (used >= limit) {
    errno = ENOSPC;
    return -1;
  }
  if (count > limit - used) count = limit - used;
  ssize_t n = real_write(fd, data, count);
  if (n > 0) __atomic_fetch_add(&g_written, (size_t)n, __ATOMIC_RELAXED);
  return n;
}
