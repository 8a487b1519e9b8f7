#include "inject/safe_point.h"

#include <sys/syscall.h>

#include "absl/strings/str_cat.h"

namespace syncscope::inject {
namespace {

// The system calls malloc makes while holding its arena lock.
const char* memory_syscall_name(int64_t nr) {
  switch (nr) {
    case SYS_mmap:
      return "mmap";
    case SYS_munmap:
      return "munmap";
    case SYS_mprotect:
      return "mprotect";
    case SYS_brk:
      return "brk";
    case SYS_madvise:
      return "madvise";
    case SYS_mremap:
      return "mremap";
    default:
      return nullptr;
  }
}

}  // namespace

std::string unsafe_reason(const ThreadPosition& at, const LoadedObject& libc,
                          const std::optional<LoadedObject>& loader) {
  // The loader never blocks for long, so waiting it out costs little, even
  // in one of its system calls (open/read/mmap during a load).
  if (loader && loader->contains(at.rip)) return "inside the dynamic loader";
  // Elsewhere (the program, other libraries, the vDSO) the thread holds no
  // libc lock at the innermost frame.
  if (!libc.contains(at.rip)) return "";
  // A blocking system call (read, nanosleep, futex wait, ...) holds no
  // allocator lock, except the memory calls malloc makes with its lock held.
  if (at.orig_rax < 0 || !at.after_syscall_insn) return "running code inside libc (it may hold malloc's lock)";
  if (const char* name = memory_syscall_name(at.orig_rax)) {
    return absl::StrCat("inside libc's ", name, " system call (malloc may hold its lock)");
  }
  return "";
}

}  // namespace syncscope::inject
