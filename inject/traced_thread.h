// One thread held under ptrace for the injector (x86-64 Linux only): seize,
// stop, run, wait, registers, memory, and leaving it as it was.
//
// Signals: while the thread runs its own code they pass through at once.
// While it runs injected code its asynchronous signals are blocked
// (PTRACE_SETSIGMASK), so they stay pending in the kernel, siginfo intact,
// and cannot interrupt a sleep inside the injected code: that would replace
// the thread's restart block, which an interrupted nanosleep of the target
// itself needs to resume with its remaining time. The few that cannot be
// blocked (SIGSTOP, a kill()ed SIGSEGV...) are swallowed and handed back at
// detach.
#pragma once

#if defined(__x86_64__)

#include <signal.h>
#include <sys/types.h>
#include <sys/user.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace syncscope::inject {

using Deadline = std::chrono::steady_clock::time_point;

class TracedThread {
 public:
  // PTRACE_SEIZE (no signal is sent, the thread keeps running). Errors:
  // NotFound for ESRCH, PermissionDenied for EPERM with the likely reason.
  static absl::StatusOr<TracedThread> seize(pid_t tid);
  TracedThread(TracedThread&& other) noexcept;
  TracedThread& operator=(TracedThread&&) = delete;
  // Best effort if still attached: stop, restore, detach (errors are lost).
  ~TracedThread();

  pid_t tid() const { return tid_; }

  // PTRACE_INTERRUPT and wait for the thread's stop (an interrupt stop or, in a
  // stopped process, a group stop). Signals arriving meanwhile are remembered.
  absl::Status stop(Deadline deadline);
  // PTRACE_CONT without a signal.
  absl::Status resume();
  // After resume(): runs the thread, remembering and suppressing signals and
  // passing group stops, until a synchronous fault (SIGSEGV, SIGBUS, SIGILL,
  // SIGFPE raised by the CPU) stops it; returns its siginfo. DeadlineExceeded
  // leaves the thread running.
  absl::StatusOr<siginfo_t> run_until_fault(Deadline deadline);

  absl::StatusOr<user_regs_struct> regs() const;
  absl::Status set_regs(const user_regs_struct& regs);
  // Snapshot of all registers (general purpose and the full XSAVE area, or the
  // legacy FXSAVE area where XSAVE is missing) taken while stopped.
  absl::Status save_state();
  const user_regs_struct& saved_regs() const { return saved_regs_; }
  // Blocks every signal but the CPU faults (a blocked SIGSEGV, once raised,
  // would reset the target's handler to SIG_DFL) until restore.
  absl::Status block_async_signals();
  // x87 and SSE control in their ABI default (empty x87 stack, MXCSR 0x1f80)
  // for a function call, whatever the interrupted code was doing.
  absl::Status set_call_fp_state();

  absl::Status read_memory(uint64_t address, void* out, size_t length) const;
  absl::Status write_memory(uint64_t address, const void* data, size_t length) const;

  // Stops the thread if running (within `grace`), puts back the saved
  // registers, detaches, and re-delivers the signals remembered meanwhile.
  absl::Status restore_and_detach(std::chrono::milliseconds grace);
  // Detach from a stop without touching registers (nothing was changed yet).
  absl::Status detach_unchanged(std::chrono::milliseconds grace);

 private:
  explicit TracedThread(pid_t tid) : tid_(tid) {}
  enum class Wait { kStopped, kExited, kTimeout };
  // waitpid for this thread until it stops or exits; *status gets the status.
  absl::StatusOr<Wait> wait_event(Deadline deadline, int* status);
  absl::Status exited_error(int status) const;
  absl::Status ptrace_error(const char* request) const;
  void remember_signal(const siginfo_t& info);
  absl::Status detach(bool restore_registers, std::chrono::milliseconds grace);

  pid_t tid_ = -1;
  int mem_fd_ = -1;  // /proc/TID/mem, for memory access while stopped
  bool attached_ = false;
  bool stopped_ = false;         // in a ptrace stop: registers can be read
  bool in_signal_stop_ = false;  // that stop is a signal-delivery-stop
  bool have_state_ = false;
  user_regs_struct saved_regs_{};
  std::vector<uint8_t> saved_xstate_;  // NT_X86_XSTATE, sized by the kernel
  user_fpregs_struct saved_fpregs_{};  // used when XSAVE is unavailable
  uint64_t saved_sigmask_ = 0;
  bool signals_blocked_ = false;  // running injected code
  bool xstate_ok_ = false;
  std::vector<siginfo_t> pending_;  // signals swallowed while held
};

}  // namespace syncscope::inject

#endif  // __x86_64__
