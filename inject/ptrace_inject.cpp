#include "inject/ptrace_inject.h"

#include <dlfcn.h>
#include <elf.h>
#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "inject/elf_symbols.h"
#include "inject/proc_maps.h"
#include "inject/safe_point.h"
#include "inject/traced_thread.h"

namespace syncscope::inject {

#if !defined(__x86_64__)

absl::StatusOr<uint64_t> inject_library(pid_t, const std::string&, int) {
  return absl::FailedPreconditionError(
      "injection supports x86-64 only, and this syncscope was built for another architecture");
}

#else

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kRedZone = 128;  // the x86-64 ABI lets leaf code use it unannounced
constexpr size_t kMaxPath = 4096;

// Addresses in the target, resolved before it is stopped.
struct Remote {
  LoadedObject libc;
  std::optional<LoadedObject> loader;  // ld-linux-x86-64.so.2
  uint64_t dlopen = 0;
  std::string dlopen_name;
  uint64_t dlerror = 0;         // 0 when only __libc_dlopen_mode exists
  uint64_t errno_location = 0;  // 0 if libc does not export it
};

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool is_libc(const std::string& base) {
  return starts_with(base, "libc.so") || (starts_with(base, "libc-") && base.size() > 5 && isdigit(base[5]));
}
bool is_libdl(const std::string& base) { return starts_with(base, "libdl.so") || starts_with(base, "libdl-"); }
bool is_loader(const std::string& base) {
  return starts_with(base, "ld-linux") || (starts_with(base, "ld-") && base.size() > 3 && isdigit(base[3]));
}

// Everything that can be refused before touching the process.
absl::Status check_target(pid_t pid) {
  if (pid <= 0) return absl::InvalidArgumentError(absl::StrCat("invalid process id ", pid));
  if (pid == getpid()) return absl::InvalidArgumentError("cannot inject into the injecting process itself");
  if (::kill(pid, 0) != 0 && errno == ESRCH) return absl::NotFoundError(absl::StrCat("no such process: ", pid));
  std::string tgid = proc_status_field(pid, "Tgid");
  if (tgid.empty()) return absl::NotFoundError(absl::StrCat("no such process: ", pid));
  if (tgid != std::to_string(pid)) {
    return absl::InvalidArgumentError(
        absl::StrCat(pid, " is a thread of process ", tgid, "; pass the process id (its main thread)"));
  }
  if (starts_with(proc_status_field(pid, "State"), "Z")) {
    return absl::NotFoundError(absl::StrCat("no such process: ", pid, " has exited (zombie)"));
  }
  // Unreadable exe (EACCES) is left to PTRACE_SEIZE, which explains EPERM.
  auto machine = elf_machine(absl::StrCat("/proc/", pid, "/exe"));
  if (machine.ok() && *machine != EM_X86_64) {
    return absl::FailedPreconditionError(absl::StrCat("process ", pid, " is not an x86-64 program (ELF machine ",
                                                      *machine, "); injection supports x86-64 only"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Remote> resolve(pid_t pid) {
  auto maps = read_proc_maps(pid);
  if (!maps.ok()) return maps.status();
  Remote r;
  auto libc = find_loaded_object(*maps, is_libc);
  if (!libc) {
    return absl::FailedPreconditionError(absl::StrCat(
        "process ", pid, " has no glibc mapped (statically linked?); injection calls the target's dlopen"));
  }
  if (libc->path.find(" (deleted)") != std::string::npos) {
    return absl::FailedPreconditionError(absl::StrCat("the libc of process ", pid,
                                                      " was replaced on disk since it started (", libc->path,
                                                      "); its symbols cannot be read safely"));
  }
  r.libc = *libc;
  r.loader = find_loaded_object(*maps, is_loader);
  // Through the target's root, so a process in a container is read from its
  // own file system, not the host's.
  std::string root = absl::StrCat("/proc/", pid, "/root");
  std::string libc_file = root + libc->path;
  auto at = [&](const LoadedObject& obj, const std::string& file, const char* name) -> uint64_t {
    auto v = elf_dynamic_symbol(file, name);
    return v.ok() ? obj.base + *v : 0;
  };
  // glibc >= 2.34 has dlopen in libc; older ones in libdl (if the target
  // loaded it), else only the internal __libc_dlopen_mode (no dlerror state).
  if ((r.dlopen = at(r.libc, libc_file, "dlopen")) != 0) {
    r.dlopen_name = "dlopen";
    r.dlerror = at(r.libc, libc_file, "dlerror");
  } else if (auto dl = find_loaded_object(*maps, is_libdl); dl && (r.dlopen = at(*dl, root + dl->path, "dlopen"))) {
    r.dlopen_name = "dlopen";
    r.dlerror = at(*dl, root + dl->path, "dlerror");
  } else if ((r.dlopen = at(r.libc, libc_file, "__libc_dlopen_mode")) != 0) {
    r.dlopen_name = "__libc_dlopen_mode";
  } else {
    auto probe = elf_dynamic_symbol(libc_file, "dlopen");
    return absl::FailedPreconditionError(
        absl::StrCat("no dlopen found in process ", pid, " (", libc->path, "): ", probe.status().message()));
  }
  r.errno_location = at(r.libc, libc_file, "__errno_location");
  return r;
}

// Where the stopped thread is, for the safe-point rule.
ThreadPosition position(const TracedThread& t, const user_regs_struct& regs) {
  ThreadPosition at;
  at.rip = regs.rip;
  at.orig_rax = static_cast<int64_t>(regs.orig_rax);
  unsigned char insn[2] = {};
  at.after_syscall_insn = t.read_memory(regs.rip - 2, insn, 2).ok() && insn[0] == 0x0f && insn[1] == 0x05;
  return at;
}

// Stops the thread where calling into libc is safe, resuming it for a
// moment and stopping it again while it is not.
absl::Status reach_safe_point(TracedThread& t, const Remote& r, Clock::time_point deadline, int timeout_ms) {
  for (;;) {
    if (auto s = t.stop(deadline); !s.ok()) return s;
    auto regs = t.regs();
    if (!regs.ok()) return regs.status();
    std::string why = unsafe_reason(position(t, *regs), r.libc, r.loader);
    if (why.empty()) return absl::OkStatus();
    if (Clock::now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat("no safe point to call dlopen in process ", t.tid(), " within ",
                                                      timeout_ms, " ms: its main thread kept being ", why));
    }
    if (auto s = t.resume(); !s.ok()) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Calls fn(args...) in the target from the saved state with a return address
// of 0: the `ret` faults at rip 0 with rsp just above the slot, which tells the
// call's own end apart from a crash inside it.
absl::StatusOr<uint64_t> call_raw(TracedThread& t, uint64_t fn, const char* what, std::vector<uint64_t> args,
                                  uint64_t return_slot, Clock::time_point deadline) {
  user_regs_struct regs = t.saved_regs();
  regs.rip = fn;
  regs.rsp = return_slot;  // 16-byte aligned + 8 at entry, as after a `call`
  regs.rax = 0;            // no vector registers used by a variadic callee
  // Not a system call: without this the kernel would "restart" the
  // interrupted syscall by moving rip back 2 bytes into dlopen.
  regs.orig_rax = static_cast<uint64_t>(-1);
  regs.eflags &= ~(0x100ULL | 0x400ULL);  // TF off; DF clear, as the ABI requires at a call
  unsigned long long* arg_regs[] = {&regs.rdi, &regs.rsi, &regs.rdx, &regs.rcx, &regs.r8, &regs.r9};
  for (size_t i = 0; i < args.size() && i < 6; ++i) *arg_regs[i] = args[i];
  uint64_t zero = 0;
  if (auto s = t.write_memory(return_slot, &zero, sizeof(zero)); !s.ok()) return s;
  if (auto s = t.set_regs(regs); !s.ok()) return s;
  if (auto s = t.set_call_fp_state(); !s.ok()) return s;
  if (auto s = t.block_async_signals(); !s.ok()) return s;
  if (auto s = t.resume(); !s.ok()) return s;
  auto fault = t.run_until_fault(deadline);
  if (!fault.ok()) return fault.status();
  auto after = t.regs();
  if (!after.ok()) return after.status();
  if (fault->si_signo == SIGSEGV && after->rip == 0 && after->rsp == return_slot + 8) return after->rax;
  return absl::InternalError(absl::StrCat("the injected call to ", what, " crashed in process ", t.tid(), ": signal ",
                                          fault->si_signo, " (", strsignal(fault->si_signo), ") at rip 0x",
                                          absl::Hex(after->rip), ", address 0x",
                                          absl::Hex(reinterpret_cast<uintptr_t>(fault->si_addr)),
                                          "; its registers were restored but the process may be left inconsistent"));
}

// call_raw with a timeout explained: the thread is still running the call
// when it is given up (the detach that follows stops and restores it).
absl::StatusOr<uint64_t> remote_call(TracedThread& t, uint64_t fn, const std::string& what, std::vector<uint64_t> args,
                                     uint64_t return_slot, Clock::time_point deadline, int timeout_ms) {
  auto result = call_raw(t, fn, what.c_str(), std::move(args), return_slot, deadline);
  if (!absl::IsDeadlineExceeded(result.status())) return result;
  return absl::DeadlineExceededError(absl::StrCat(
      what, " did not return within ", timeout_ms, " ms in process ", t.tid(),
      " (deadlock in the target?); its main thread was stopped, its registers restored and it was detached, so "
      "it continues where it was, but the library may be half-loaded and the loader's lock may stay held"));
}

std::string read_remote_string(const TracedThread& t, uint64_t address) {
  std::string out;
  // Page by page: the string may end just before an unmapped page.
  while (out.size() < kMaxPath) {
    size_t chunk = 4096 - (address % 4096);
    std::string buf(chunk, '\0');
    if (!t.read_memory(address, buf.data(), chunk).ok()) break;
    size_t nul = buf.find('\0');
    out += buf.substr(0, nul);
    if (nul != std::string::npos) break;
    address += chunk;
  }
  return out;
}

// The calls themselves, from the saved state at a safe point. The path is
// placed below the red zone, the live stack is left alone, and errno (which
// dlopen may change) is put back.
absl::StatusOr<uint64_t> load(TracedThread& t, const Remote& r, const std::string& path, Clock::time_point deadline,
                              int timeout_ms) {
  const uint64_t sp = t.saved_regs().rsp;
  const uint64_t string_at = (sp - kRedZone - (path.size() + 1)) & ~uint64_t{15};
  const uint64_t return_slot = string_at - 8;
  const uint64_t scratch_end = string_at + path.size() + 1;
  std::vector<char> original(scratch_end - return_slot);
  if (auto s = t.read_memory(return_slot, original.data(), original.size()); !s.ok()) return s;
  if (auto s = t.write_memory(string_at, path.c_str(), path.size() + 1); !s.ok()) return s;

  uint64_t errno_at = 0;
  int saved_errno = 0;
  if (r.errno_location != 0) {
    auto e = remote_call(t, r.errno_location, "__errno_location()", {}, return_slot, deadline, timeout_ms);
    if (!e.ok()) return e.status();
    errno_at = *e;
    if (auto s = t.read_memory(errno_at, &saved_errno, sizeof(saved_errno)); !s.ok()) return s;
  }

  auto handle = remote_call(t, r.dlopen, absl::StrCat(r.dlopen_name, "(\"", path, "\")"),
                            {string_at, RTLD_NOW | RTLD_LOCAL}, return_slot, deadline, timeout_ms);
  if (!handle.ok()) return handle.status();
  std::string error;
  if (*handle == 0) {
    error = "(no dlerror text: the target only has __libc_dlopen_mode)";
    if (r.dlerror != 0) {
      auto text = remote_call(t, r.dlerror, "dlerror()", {}, return_slot, deadline, timeout_ms);
      if (!text.ok()) return text.status();
      error = *text != 0 ? read_remote_string(t, *text) : "(dlerror returned NULL)";
    }
  }
  if (errno_at != 0) (void)t.write_memory(errno_at, &saved_errno, sizeof(saved_errno));
  (void)t.write_memory(return_slot, original.data(), original.size());
  if (*handle == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(r.dlopen_name, "(\"", path, "\") failed in process ", t.tid(), ": ", error));
  }
  return *handle;
}

// Detach status folded into the main result: a failure to put the target
// back matters even when the load itself worked.
absl::StatusOr<uint64_t> finish(TracedThread& t, absl::StatusOr<uint64_t> result, bool restore) {
  constexpr std::chrono::milliseconds kGrace(2000);
  absl::Status detached = restore ? t.restore_and_detach(kGrace) : t.detach_unchanged(kGrace);
  if (detached.ok()) return result;
  std::string what = result.ok() ? absl::StrCat("the library was loaded (handle 0x", absl::Hex(*result), ")")
                                 : std::string(result.status().message());
  return absl::Status(detached.code(),
                      absl::StrCat(what, "; then putting process ", t.tid(), " back failed: ", detached.message()));
}

}  // namespace

absl::StatusOr<uint64_t> inject_library(pid_t pid, const std::string& library_path, int timeout_ms) {
  if (library_path.empty() || library_path.size() > kMaxPath || library_path.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("invalid library path \"", library_path, "\""));
  }
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  if (auto s = check_target(pid); !s.ok()) return s;
  auto thread = TracedThread::seize(pid);
  if (!thread.ok()) return thread.status();
  TracedThread& t = *thread;
  // Resolved while the target still runs: its libc does not move.
  auto remote = resolve(pid);
  if (!remote.ok()) return finish(t, remote.status(), false);
  if (auto s = reach_safe_point(t, *remote, deadline, timeout_ms); !s.ok()) return finish(t, s, false);
  if (auto s = t.save_state(); !s.ok()) return finish(t, s, false);
  return finish(t, load(t, *remote, library_path, deadline, timeout_ms), true);
}

#endif  // __x86_64__

}  // namespace syncscope::inject
