// When a stopped thread may be made to call dlopen: it must not already be
// inside malloc (its lock is not recursive: a nested malloc would deadlock or
// corrupt the heap) or inside the dynamic loader (its link maps may be half
// updated). Pure, so the rule is unit-tested without ptrace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "inject/proc_maps.h"

namespace syncscope::inject {

struct ThreadPosition {
  uint64_t rip = 0;
  int64_t orig_rax = -1;            // >= 0: stopped in or right after a system call
  bool after_syscall_insn = false;  // the two bytes before rip are 0f 05 (`syscall`)
};

// "" when calling into libc from here is safe, else why not (for messages).
std::string unsafe_reason(const ThreadPosition& at, const LoadedObject& libc,
                          const std::optional<LoadedObject>& loader);

}  // namespace syncscope::inject
