#include "inject/traced_thread.h"

#if defined(__x86_64__)

#include <elf.h>
#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "inject/proc_maps.h"

namespace syncscope::inject {
namespace {

using Clock = std::chrono::steady_clock;

// The largest XSAVE layout (AMX tiles included) is about 11 KiB; the kernel
// shortens iov_len to the real size.
constexpr size_t kXstateBuffer = 64 * 1024;

// Why PTRACE_SEIZE said EPERM, as far as can be told from outside.
std::string permission_explanation(pid_t pid) {
  std::string tracer = proc_status_field(pid, "TracerPid");
  if (!tracer.empty() && tracer != "0") {
    std::string comm = read_small_file(absl::StrCat("/proc/", tracer, "/comm"));
    while (!comm.empty() && comm.back() == '\n') comm.pop_back();
    return absl::StrCat("process ", pid, " is already traced by another tracer (TracerPid ", tracer,
                        comm.empty() ? "" : absl::StrCat(", ", comm),
                        "); only one tracer may attach at a time: detach the debugger or strace first");
  }
  std::string why = absl::StrCat("not permitted to ptrace process ", pid, " (EPERM)");
  std::string scope = read_small_file("/proc/sys/kernel/yama/ptrace_scope");
  while (!scope.empty() && (scope.back() == '\n' || scope.back() == ' ')) scope.pop_back();
  if (!scope.empty()) {
    absl::StrAppend(&why, "; kernel.yama.ptrace_scope is ", scope);
    if (scope == "1") {
      absl::StrAppend(&why, " (only ancestors may attach: run as root, or `sudo sysctl kernel.yama.ptrace_scope=0`)");
    } else if (scope == "2") {
      absl::StrAppend(&why, " (only CAP_SYS_PTRACE may attach: run as root)");
    } else if (scope == "3") {
      absl::StrAppend(&why, " (attaching is disabled until reboot)");
    }
  }
  absl::StrAppend(&why,
                  "; the target must run as your user and be dumpable (not setuid), or the injector needs "
                  "CAP_SYS_PTRACE (root); in a container, start it with --cap-add=SYS_PTRACE");
  return why;
}

// CPU faults: the injected call itself crashed (si_code > 0 means the kernel
// raised it, not kill/tgkill/sigqueue).
bool is_synchronous_fault(const siginfo_t& info) {
  switch (info.si_signo) {
    case SIGSEGV:
    case SIGBUS:
    case SIGILL:
    case SIGFPE:
    case SIGTRAP:
      return info.si_code > 0;
    default:
      return false;
  }
}

}  // namespace

absl::StatusOr<TracedThread> TracedThread::seize(pid_t tid) {
  if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
    int err = errno;
    if (err == ESRCH) return absl::NotFoundError(absl::StrCat("no such process: ", tid));
    if (err == EPERM) return absl::PermissionDeniedError(permission_explanation(tid));
    return absl::InternalError(absl::StrCat("PTRACE_SEIZE of ", tid, " failed: ", std::strerror(err)));
  }
  TracedThread t(tid);
  t.attached_ = true;
  t.mem_fd_ = ::open(absl::StrCat("/proc/", tid, "/mem").c_str(), O_RDWR | O_CLOEXEC);
  if (t.mem_fd_ < 0) {
    int err = errno;
    // The destructor stops and detaches it.
    return absl::PermissionDeniedError(absl::StrCat("cannot open /proc/", tid, "/mem: ", std::strerror(err)));
  }
  return t;
}

TracedThread::TracedThread(TracedThread&& o) noexcept
    : tid_(o.tid_),
      mem_fd_(o.mem_fd_),
      attached_(o.attached_),
      stopped_(o.stopped_),
      in_signal_stop_(o.in_signal_stop_),
      have_state_(o.have_state_),
      saved_regs_(o.saved_regs_),
      saved_xstate_(std::move(o.saved_xstate_)),
      saved_fpregs_(o.saved_fpregs_),
      saved_sigmask_(o.saved_sigmask_),
      signals_blocked_(o.signals_blocked_),
      xstate_ok_(o.xstate_ok_),
      pending_(std::move(o.pending_)) {
  o.attached_ = false;
  o.mem_fd_ = -1;
}

TracedThread::~TracedThread() {
  if (attached_) (void)detach(have_state_, std::chrono::milliseconds(1000));
  if (mem_fd_ >= 0) ::close(mem_fd_);
}

absl::StatusOr<TracedThread::Wait> TracedThread::wait_event(Deadline deadline, int* status) {
  for (;;) {
    pid_t r = ::waitpid(tid_, status, __WALL | WNOHANG);
    if (r == tid_) {
      if (WIFSTOPPED(*status)) return Wait::kStopped;
      if (WIFEXITED(*status) || WIFSIGNALED(*status)) {
        attached_ = false;
        stopped_ = false;
        return Wait::kExited;
      }
      continue;
    }
    if (r < 0 && errno != EINTR) {
      int err = errno;
      attached_ = false;
      return absl::AbortedError(
          absl::StrCat("lost process ", tid_, " during injection: waitpid: ", std::strerror(err)));
    }
    if (Clock::now() >= deadline) return Wait::kTimeout;
    // Polling keeps the deadline simple; a stop is noticed within 0.1 ms.
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

absl::Status TracedThread::exited_error(int status) const {
  if (WIFSIGNALED(status)) {
    return absl::AbortedError(absl::StrCat("process ", tid_, " was killed by signal ", WTERMSIG(status), " (",
                                           strsignal(WTERMSIG(status)), ") during injection"));
  }
  return absl::AbortedError(
      absl::StrCat("process ", tid_, " exited with status ", WEXITSTATUS(status), " during injection"));
}

absl::Status TracedThread::ptrace_error(const char* request) const {
  int err = errno;
  if (err == ESRCH)
    return absl::AbortedError(absl::StrCat("process ", tid_, " vanished during injection (", request, ")"));
  return absl::InternalError(absl::StrCat(request, " on ", tid_, " failed: ", std::strerror(err)));
}

void TracedThread::remember_signal(const siginfo_t& info) {
  // Standard signals do not queue: a second one while one is pending merges.
  if (info.si_signo < 32) {
    for (const siginfo_t& p : pending_) {
      if (p.si_signo == info.si_signo) return;
    }
  }
  pending_.push_back(info);
}

absl::Status TracedThread::stop(Deadline deadline) {
  if (stopped_) return absl::OkStatus();
  if (ptrace(PTRACE_INTERRUPT, tid_, nullptr, nullptr) != 0) return ptrace_error("PTRACE_INTERRUPT");
  for (;;) {
    int status = 0;
    auto w = wait_event(deadline, &status);
    if (!w.ok()) return w.status();
    if (*w == Wait::kExited) return exited_error(status);
    if (*w == Wait::kTimeout) {
      return absl::DeadlineExceededError(absl::StrCat("thread ", tid_, " did not stop (uninterruptible sleep?)"));
    }
    if (status >> 16 == PTRACE_EVENT_STOP) {
      // The interrupt stop, or a group stop of an already stopped process.
      stopped_ = true;
      in_signal_stop_ = false;
      return absl::OkStatus();
    }
    // A signal-delivery-stop ahead of the interrupt, which stays pending and
    // stops the thread next. In the thread's own code the signal is delivered
    // now, as it would have been; in injected code it is kept for later.
    long deliver = WSTOPSIG(status);
    if (signals_blocked_) {
      siginfo_t info{};
      if (ptrace(PTRACE_GETSIGINFO, tid_, nullptr, &info) != 0) return ptrace_error("PTRACE_GETSIGINFO");
      remember_signal(info);
      deliver = 0;
    }
    if (ptrace(PTRACE_CONT, tid_, nullptr, reinterpret_cast<void*>(deliver)) != 0) return ptrace_error("PTRACE_CONT");
  }
}

absl::Status TracedThread::resume() {
  if (ptrace(PTRACE_CONT, tid_, nullptr, nullptr) != 0) return ptrace_error("PTRACE_CONT");
  stopped_ = false;
  in_signal_stop_ = false;
  return absl::OkStatus();
}

absl::StatusOr<siginfo_t> TracedThread::run_until_fault(Deadline deadline) {
  for (;;) {
    int status = 0;
    auto w = wait_event(deadline, &status);
    if (!w.ok()) return w.status();
    if (*w == Wait::kExited) return exited_error(status);
    if (*w == Wait::kTimeout) return absl::DeadlineExceededError("timed out");
    if (status >> 16 == PTRACE_EVENT_STOP) {
      // A group stop (SIGSTOP to another thread, or SIGTSTP): this thread
      // finishes the call first. At detach the kernel puts a thread of a
      // still-stopped group back into the group stop by itself.
      if (ptrace(PTRACE_CONT, tid_, nullptr, nullptr) != 0) return ptrace_error("PTRACE_CONT");
      continue;
    }
    siginfo_t info{};
    if (ptrace(PTRACE_GETSIGINFO, tid_, nullptr, &info) != 0) return ptrace_error("PTRACE_GETSIGINFO");
    if (is_synchronous_fault(info)) {
      stopped_ = true;
      in_signal_stop_ = true;
      return info;
    }
    // Not for the injected code (SIGSTOP, or a fault signal sent with
    // kill): handed back at detach, when the thread runs its own code again.
    remember_signal(info);
    if (ptrace(PTRACE_CONT, tid_, nullptr, nullptr) != 0) return ptrace_error("PTRACE_CONT");
  }
}

absl::StatusOr<user_regs_struct> TracedThread::regs() const {
  user_regs_struct r{};
  if (ptrace(PTRACE_GETREGS, tid_, nullptr, &r) != 0) return ptrace_error("PTRACE_GETREGS");
  return r;
}

absl::Status TracedThread::set_regs(const user_regs_struct& r) {
  if (ptrace(PTRACE_SETREGS, tid_, nullptr, &r) != 0) return ptrace_error("PTRACE_SETREGS");
  return absl::OkStatus();
}

absl::Status TracedThread::save_state() {
  auto r = regs();
  if (!r.ok()) return r.status();
  saved_regs_ = *r;
  saved_xstate_.assign(kXstateBuffer, 0);
  iovec iov{saved_xstate_.data(), saved_xstate_.size()};
  xstate_ok_ = ptrace(PTRACE_GETREGSET, tid_, reinterpret_cast<void*>(NT_X86_XSTATE), &iov) == 0;
  if (xstate_ok_) {
    saved_xstate_.resize(iov.iov_len);
  } else if (ptrace(PTRACE_GETFPREGS, tid_, nullptr, &saved_fpregs_) != 0) {
    return ptrace_error("PTRACE_GETFPREGS");
  }
  if (ptrace(PTRACE_GETSIGMASK, tid_, reinterpret_cast<void*>(sizeof(saved_sigmask_)), &saved_sigmask_) != 0) {
    return ptrace_error("PTRACE_GETSIGMASK");
  }
  have_state_ = true;
  return absl::OkStatus();
}

absl::Status TracedThread::block_async_signals() {
  if (signals_blocked_) return absl::OkStatus();
  uint64_t mask = ~uint64_t{0};
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP}) mask &= ~(uint64_t{1} << (sig - 1));
  if (ptrace(PTRACE_SETSIGMASK, tid_, reinterpret_cast<void*>(sizeof(mask)), &mask) != 0) {
    return ptrace_error("PTRACE_SETSIGMASK");
  }
  signals_blocked_ = true;
  return absl::OkStatus();
}

absl::Status TracedThread::set_call_fp_state() {
  user_fpregs_struct fp{};
  if (ptrace(PTRACE_GETFPREGS, tid_, nullptr, &fp) != 0) return ptrace_error("PTRACE_GETFPREGS");
  fp.cwd = 0x37f;  // x87: all exceptions masked, 64-bit precision, round to nearest
  fp.swd = 0;
  fp.ftw = 0;         // FXSAVE's abridged tag word: every x87 register empty
  fp.mxcsr = 0x1f80;  // SSE: all exceptions masked, round to nearest
  if (ptrace(PTRACE_SETFPREGS, tid_, nullptr, &fp) != 0) return ptrace_error("PTRACE_SETFPREGS");
  return absl::OkStatus();
}

absl::Status TracedThread::read_memory(uint64_t address, void* out, size_t length) const {
  size_t done = 0;
  while (done < length) {
    ssize_t n = ::pread(mem_fd_, static_cast<char*>(out) + done, length - done, static_cast<off_t>(address + done));
    if (n <= 0) {
      return absl::OutOfRangeError(absl::StrCat("cannot read target memory at 0x", absl::Hex(address + done), ": ",
                                                n < 0 ? std::strerror(errno) : "end of file"));
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status TracedThread::write_memory(uint64_t address, const void* data, size_t length) const {
  size_t done = 0;
  while (done < length) {
    ssize_t n =
        ::pwrite(mem_fd_, static_cast<const char*>(data) + done, length - done, static_cast<off_t>(address + done));
    if (n <= 0) {
      return absl::OutOfRangeError(absl::StrCat("cannot write target memory at 0x", absl::Hex(address + done), ": ",
                                                n < 0 ? std::strerror(errno) : "end of file"));
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status TracedThread::restore_and_detach(std::chrono::milliseconds grace) { return detach(true, grace); }

absl::Status TracedThread::detach_unchanged(std::chrono::milliseconds grace) { return detach(false, grace); }

absl::Status TracedThread::detach(bool restore_registers, std::chrono::milliseconds grace) {
  if (!attached_) return absl::OkStatus();
  // PTRACE_DETACH needs a stopped thread.
  if (auto s = stop(Clock::now() + grace); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("cannot stop the thread to detach from it: ", s.message()));
  }
  if (restore_registers && have_state_) {
    // orig_rax and rax go back as they were, so an interrupted system call is
    // restarted (or fails with EINTR) exactly as after any other stop.
    if (auto s = set_regs(saved_regs_); !s.ok()) return s;
    if (xstate_ok_) {
      iovec iov{saved_xstate_.data(), saved_xstate_.size()};
      if (ptrace(PTRACE_SETREGSET, tid_, reinterpret_cast<void*>(NT_X86_XSTATE), &iov) != 0) {
        return ptrace_error("PTRACE_SETREGSET(NT_X86_XSTATE)");
      }
    } else if (ptrace(PTRACE_SETFPREGS, tid_, nullptr, &saved_fpregs_) != 0) {
      return ptrace_error("PTRACE_SETFPREGS");
    }
    // Signals that came while blocked are delivered once the thread resumes.
    if (ptrace(PTRACE_SETSIGMASK, tid_, reinterpret_cast<void*>(sizeof(saved_sigmask_)), &saved_sigmask_) != 0) {
      return ptrace_error("PTRACE_SETSIGMASK");
    }
    signals_blocked_ = false;
  }
  // A signal given to PTRACE_DETACH is delivered only from a
  // signal-delivery-stop; there, with its original siginfo put back, the
  // first remembered signal is delivered as if it had just arrived.
  size_t requeue_from = 0;
  long deliver = 0;
  if (in_signal_stop_ && !pending_.empty() && ptrace(PTRACE_SETSIGINFO, tid_, nullptr, &pending_[0]) == 0) {
    deliver = pending_[0].si_signo;
    requeue_from = 1;
  }
  if (ptrace(PTRACE_DETACH, tid_, nullptr, reinterpret_cast<void*>(deliver)) != 0) return ptrace_error("PTRACE_DETACH");
  attached_ = false;
  stopped_ = false;
  // Any others are queued again; rt_tgsigqueueinfo keeps a sigqueue()'s
  // payload but may not forge kernel or kill() senders (si_code >= 0).
  pid_t tgid = tid_;  // the injector only traces main threads
  for (size_t i = requeue_from; i < pending_.size(); ++i) {
    siginfo_t info = pending_[i];
    bool forgeable = info.si_code < 0 && info.si_code != SI_TKILL;
    if (!forgeable || syscall(SYS_rt_tgsigqueueinfo, tgid, tid_, info.si_signo, &info) != 0) {
      syscall(SYS_tgkill, tgid, tid_, info.si_signo);
    }
  }
  pending_.clear();
  return absl::OkStatus();
}

}  // namespace syncscope::inject

#endif  // __x86_64__
