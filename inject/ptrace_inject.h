// Loading a shared library into a running process with ptrace (x86-64 Linux),
// without gdb: the target's own dlopen is called on its main thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace syncscope::inject {

// Loads `library_path` into the running process `pid` by calling
// dlopen(library_path, RTLD_NOW | RTLD_LOCAL) on its main thread (tid == pid),
// and returns the handle value dlopen returned. On dlopen failure, the error
// names the dlerror() text read from the target. Leaves the target exactly as
// it was (all registers incl. FP/AVX state via PTRACE_GETREGSET NT_X86_XSTATE or
// PTRACE_GETFPREGS, stack contents below the red zone untouched, pending signals
// re-delivered at detach, an interrupted system call restarted correctly).
//
// The path is resolved by the target: relative to its working directory, in
// its mount namespace, searched on its library path when it has no '/'.
// Errors: NotFound (no such process), PermissionDenied (ptrace refused: yama,
// missing CAP_SYS_PTRACE, another tracer), FailedPrecondition (not x86-64, no
// libc, dlopen failed), DeadlineExceeded (no safe point or dlopen did not
// return within timeout_ms), Aborted (the process exited meanwhile).
//
// Limitations: glibc targets only (dlopen in libc, libdl.so.2, or
// __libc_dlopen_mode). Only the main thread is stopped; other threads run on.
// The safe-point check sees only the innermost frame: program code inside a
// signal handler that interrupted malloc, or holding a lock of another
// library, counts as safe. After a timeout, a sleep (nanosleep, poll, futex
// with timeout) inside the abandoned call has replaced the thread's restart
// block, so a sleep the target itself was in may resume for the wrong time.
// Calls that Linux never restarts after a stop (epoll_wait, semop, ... see
// signal(7)) return EINTR to the target, as after SIGSTOP/SIGCONT.
absl::StatusOr<uint64_t> inject_library(pid_t pid, const std::string& library_path, int timeout_ms = 10000);

}  // namespace syncscope::inject
