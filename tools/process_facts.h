// What `syncscope attach` needs to know about a process before touching it,
// read from /proc: who owns it, what it runs, whether it is a CUDA process,
// whether the recorder is already in it, and which architecture it is.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

namespace syncscope {

struct ProcessFacts {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string command_line;  // argv joined with spaces
  std::string exe;
  bool cuda_loaded = false;      // libcudart or libcuda mapped
  bool recorder_loaded = false;  // libsyncscope.so mapped
  uint16_t machine = 0;          // ELF e_machine of the executable (0: unknown)
};

// NotFound "no such process" when it does not exist (or has exited).
absl::StatusOr<ProcessFacts> inspect_process(pid_t pid);

// Why syncscope may not attach to it (OK if it may): another user's
// process (unless root), a different architecture, not a CUDA process.
absl::Status check_attachable(const ProcessFacts& facts);

// Processes whose command line contains `pattern` (like pgrep -f), except
// this one and its ancestors, sorted by pid.
std::vector<pid_t> find_processes(const std::string& pattern);

}  // namespace syncscope
