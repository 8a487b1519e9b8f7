/* What lets the shipped binaries (bin/syncscope, libsyncscope.so) built on a
 * new glibc run on glibc 2.28 (the wheel's manylinux_2_28 tag, issue 25).
 *
 * Every reference to a glibc symbol newer than 2.28 is redirected at link
 * time with GNU ld's --wrap=SYMBOL (which also rewrites the references inside
 * the static libstdc++.a, libgcc_eh.a and Abseil archives, where no header
 * trick reaches) to the replacement defined here, which either calls the old
 * version of the same function (SS_FORWARD: a jump to SYMBOL@VERSION) or does
 * the job with what 2.28 has (SS_WRAP: written by hand).
 *
 * THIS FILE IS THE LIST: compat/CMakeLists.txt passes --wrap for every
 * SS_FORWARD line and every SS_WRAP definition found here (and in
 * glibc_compat_libm.c and glibc_start.c, executables only), each with the
 * reason next to it.
 * scripts/check-manylinux.py fails the wheel if a newer version slips
 * through; add the symbol here then.
 *
 * On glibc < 2.34 the pthread and dl functions live in libpthread.so.0 and
 * libdl.so.2 (same version names), so the portable link also records those
 * two as NEEDED (compat/CMakeLists.txt). x86-64 only (the jumps below). */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "compat/glibc_compat.h"

/* glibc 2.34 moved libpthread into libc and gave its functions a new
 * version; the old one (in libpthread.so.0 before 2.34, kept in libc since)
 * is the same function. From libstdc++'s std::thread, call_once,
 * thread_local destructors, and our own threads. */
SS_FORWARD(pthread_create, GLIBC_2.2.5);
SS_FORWARD(pthread_join, GLIBC_2.2.5);
SS_FORWARD(pthread_detach, GLIBC_2.2.5);
SS_FORWARD(pthread_once, GLIBC_2.2.5);
SS_FORWARD(pthread_key_create, GLIBC_2.2.5);
SS_FORWARD(pthread_key_delete, GLIBC_2.2.5);
SS_FORWARD(pthread_getspecific, GLIBC_2.2.5);
SS_FORWARD(pthread_setspecific, GLIBC_2.2.5);
SS_FORWARD(pthread_mutex_trylock, GLIBC_2.2.5);
SS_FORWARD(pthread_mutexattr_init, GLIBC_2.2.5);
SS_FORWARD(pthread_mutexattr_settype, GLIBC_2.2.5);
SS_FORWARD(pthread_mutexattr_destroy, GLIBC_2.2.5);
SS_FORWARD(pthread_attr_setstacksize, GLIBC_2.2.5);
SS_FORWARD(pthread_kill, GLIBC_2.2.5);
SS_FORWARD(pthread_rwlock_rdlock, GLIBC_2.2.5);
SS_FORWARD(pthread_rwlock_wrlock, GLIBC_2.2.5);
SS_FORWARD(pthread_rwlock_unlock, GLIBC_2.2.5);
SS_FORWARD(pthread_rwlock_init, GLIBC_2.2.5);
SS_FORWARD(pthread_rwlock_destroy, GLIBC_2.2.5);
SS_FORWARD(pthread_setname_np, GLIBC_2.12);
SS_FORWARD(pthread_getname_np, GLIBC_2.12);
SS_FORWARD(pthread_timedjoin_np, GLIBC_2.3.3);
SS_FORWARD(pthread_tryjoin_np, GLIBC_2.3.3);
SS_FORWARD(pthread_getattr_np, GLIBC_2.2.5);
/* Referenced (weakly) by libstdc++'s gthr-posix.h to tell whether threads are in use. */
SS_FORWARD(__pthread_key_create, GLIBC_2.2.5);
/* 2.32 gave pthread_sigmask a new version (libc instead of libpthread). */
SS_FORWARD(pthread_sigmask, GLIBC_2.2.5);
/* glibc 2.34 moved libdl into libc the same way. Not dlsym: libsyncscope.so
 * defines its own (preload/hooks/hooks_entry_points.cpp), which its calls must reach. */
SS_FORWARD(dlopen, GLIBC_2.2.5);
SS_FORWARD(dlclose, GLIBC_2.2.5);
SS_FORWARD(dlvsym, GLIBC_2.2.5);
SS_FORWARD(dlerror, GLIBC_2.2.5);
SS_FORWARD(dladdr, GLIBC_2.2.5);
SS_FORWARD(dladdr1, GLIBC_2.3.3);
SS_FORWARD(dlinfo, GLIBC_2.3.3);

/* stat and friends are functions only since 2.33; before, <sys/stat.h>
 * inlined them as calls of __xstat(_STAT_VER, ...), which 2.33+ keep. On
 * x86-64 _STAT_VER is 1 and struct stat is struct stat64. */
#define SS_STAT_VER 1
extern int syncscope_old_xstat(int, const char*, struct stat*);
extern int syncscope_old_lxstat(int, const char*, struct stat*);
extern int syncscope_old_fxstat(int, int, struct stat*);
extern int syncscope_old_fxstatat(int, int, const char*, struct stat*, int);
__asm__(".symver syncscope_old_xstat, __xstat@GLIBC_2.2.5");
__asm__(".symver syncscope_old_lxstat, __lxstat@GLIBC_2.2.5");
__asm__(".symver syncscope_old_fxstat, __fxstat@GLIBC_2.2.5");
__asm__(".symver syncscope_old_fxstatat, __fxstatat@GLIBC_2.4");
SS_HIDDEN int SS_WRAP(stat)(const char* path, struct stat* st) { return syncscope_old_xstat(SS_STAT_VER, path, st); }
SS_HIDDEN int SS_WRAP(stat64)(const char* path, struct stat* st) { return syncscope_old_xstat(SS_STAT_VER, path, st); }
SS_HIDDEN int SS_WRAP(lstat)(const char* path, struct stat* st) { return syncscope_old_lxstat(SS_STAT_VER, path, st); }
SS_HIDDEN int SS_WRAP(lstat64)(const char* path, struct stat* st) { return syncscope_old_lxstat(SS_STAT_VER, path, st); }
SS_HIDDEN int SS_WRAP(fstat)(int fd, struct stat* st) { return syncscope_old_fxstat(SS_STAT_VER, fd, st); }
SS_HIDDEN int SS_WRAP(fstat64)(int fd, struct stat* st) { return syncscope_old_fxstat(SS_STAT_VER, fd, st); }
SS_HIDDEN int SS_WRAP(fstatat)(int dirfd, const char* path, struct stat* st, int flags) {
  return syncscope_old_fxstatat(SS_STAT_VER, dirfd, path, st, flags);
}
SS_HIDDEN int SS_WRAP(fstatat64)(int dirfd, const char* path, struct stat* st, int flags) {
  return syncscope_old_fxstatat(SS_STAT_VER, dirfd, path, st, flags);
}

/* New in 2.36, used by libstdc++'s std::random_device ("default" token):
 * the kernel's getrandom (Linux 3.17+; /dev/urandom before that). */
SS_HIDDEN uint32_t SS_WRAP(arc4random)(void) {
  uint32_t value = 0;
  size_t got = 0;
  while (got < sizeof value) {
    long n = syscall(SYS_getrandom, (char*)&value + got, sizeof value - got, 0);
    if (n > 0) {
      got += (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  if (got < sizeof value) {
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      while (got < sizeof value) {
        ssize_t n = read(fd, (char*)&value + got, sizeof value - got);
        if (n > 0) got += (size_t)n;
        else if (n < 0 && errno == EINTR) continue;
        else break;
      }
      close(fd);
    }
  }
  return value;
}

/* New in 2.30 (2.34 version), from std::condition_variable's waits on
 * steady_clock in libstdc++'s headers: a wait until a CLOCK_MONOTONIC time
 * becomes a wait until the same distance on CLOCK_REALTIME (the condition
 * variable's own clock). A jump of the wall clock during the wait moves its
 * end; callers re-check their clock, as for any spurious wake-up. */
SS_HIDDEN int SS_WRAP(pthread_cond_clockwait)(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                            const struct timespec* abstime) {
  if (clock == CLOCK_REALTIME) return pthread_cond_timedwait(cond, mutex, abstime);
  if (clock != CLOCK_MONOTONIC) return EINVAL;
  struct timespec now_clock, now_real, until;
  clock_gettime(CLOCK_MONOTONIC, &now_clock);
  clock_gettime(CLOCK_REALTIME, &now_real);
  long long ns = (long long)(abstime->tv_sec - now_clock.tv_sec) * 1000000000LL + (abstime->tv_nsec - now_clock.tv_nsec);
  if (ns < 0) ns = 0;
  ns += now_real.tv_nsec;
  until.tv_sec = now_real.tv_sec + (time_t)(ns / 1000000000LL);
  until.tv_nsec = (long)(ns % 1000000000LL);
  return pthread_cond_timedwait(cond, mutex, &until);
}

/* New in 2.32 (a char libc sets while the process has one thread; libstdc++
 * then skips atomic reference counting). Always 0 here: "maybe
 * multi-threaded", the safe answer. */
SS_HIDDEN char SS_WRAP(__libc_single_threaded) = 0;

/* New in 2.35: how the static libgcc_eh (GCC 12+, -static-libgcc) finds the
 * unwind tables of the object a PC is in. If it fails, every C++ exception
 * terminates, so this must work: glibc's own where it has one, else the
 * answer pieced together from dl_iterate_phdr (what libgcc did before). */
typedef int (*syncscope_find_object_fn)(void*, struct dl_find_object*);
/* Tests set it to use dl_iterate_phdr even where glibc has _dl_find_object. */
int syncscope_compat_find_object_fallback_only SS_HIDDEN = 0;
static syncscope_find_object_fn g_real_find_object;
static int g_find_object_resolved;

struct syncscope_find_ctx {
  uintptr_t pc;
  struct dl_find_object* out;
  int found;
};

static int syncscope_find_in(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct syncscope_find_ctx* ctx = (struct syncscope_find_ctx*)data;
  uintptr_t low = UINTPTR_MAX, high = 0;
  const void* eh_frame = NULL;
  int contains = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    uintptr_t begin = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD) {
      uintptr_t end = begin + ph->p_memsz;
      if (begin < low) low = begin;
      if (end > high) high = end;
      if (ctx->pc >= begin && ctx->pc < end) contains = 1;
    } else if (ph->p_type == PT_GNU_EH_FRAME) {
      eh_frame = (const void*)begin;
    }
  }
  if (!contains) return 0;
  memset(ctx->out, 0, sizeof *ctx->out);
  ctx->out->dlfo_map_start = (void*)low;
  ctx->out->dlfo_map_end = (void*)high;
  ctx->out->dlfo_link_map = NULL; /* libgcc reads only the map start and eh_frame */
  ctx->out->dlfo_eh_frame = (void*)eh_frame;
  ctx->found = 1;
  return 1;
}

SS_HIDDEN int syncscope_find_object_by_phdr(void* pc, struct dl_find_object* result) {
  struct syncscope_find_ctx ctx = {(uintptr_t)pc, result, 0};
  dl_iterate_phdr(syncscope_find_in, &ctx);
  return ctx.found ? 0 : -1;
}

static void syncscope_resolve_find_object(void) {
  void* fn = dlvsym(RTLD_DEFAULT, "_dl_find_object", "GLIBC_2.35");
  __atomic_store_n(&g_real_find_object, (syncscope_find_object_fn)fn, __ATOMIC_RELEASE);
  __atomic_store_n(&g_find_object_resolved, 1, __ATOMIC_RELEASE);
}

/* Resolved at load time, before any exception; lazily if one comes first. */
__attribute__((constructor)) static void syncscope_compat_init(void) { syncscope_resolve_find_object(); }

SS_HIDDEN int SS_WRAP(_dl_find_object)(void* pc, struct dl_find_object* result) {
  if (!__atomic_load_n(&syncscope_compat_find_object_fallback_only, __ATOMIC_RELAXED)) {
    if (!__atomic_load_n(&g_find_object_resolved, __ATOMIC_ACQUIRE)) syncscope_resolve_find_object();
    syncscope_find_object_fn real = __atomic_load_n(&g_real_find_object, __ATOMIC_ACQUIRE);
    if (real != NULL) return real(pc, result);
  }
  return syncscope_find_object_by_phdr(pc, result);
}
