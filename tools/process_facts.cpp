#include "tools/process_facts.h"

#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "inject/elf_symbols.h"
#include "inject/proc_maps.h"

namespace syncscope {
namespace {

using inject::elf_machine;
using inject::proc_status_field;

std::string command_line_of(pid_t pid) {
  std::string raw = inject::read_small_file("/proc/" + std::to_string(pid) + "/cmdline");
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  std::replace(raw.begin(), raw.end(), '\0', ' ');
  return raw;
}

pid_t parent_of(pid_t pid) { return static_cast<pid_t>(std::atoi(proc_status_field(pid, "PPid").c_str())); }

const char* machine_name(uint16_t machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86-64";
    case EM_AARCH64:
      return "aarch64";
    case EM_386:
      return "i386";
    case EM_ARM:
      return "arm";
    case EM_PPC64:
      return "ppc64";
    default:
      return "an unknown architecture";
  }
}

}  // namespace

absl::StatusOr<ProcessFacts> inspect_process(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  if (pid <= 0 || proc_status_field(pid, "Pid").empty()) {
    return absl::NotFoundError("no such process: " + std::to_string(pid));
  }
  ProcessFacts facts;
  facts.pid = pid;
  facts.uid = static_cast<uid_t>(std::strtoul(proc_status_field(pid, "Uid").c_str(), nullptr, 10));
  facts.gid = static_cast<gid_t>(std::strtoul(proc_status_field(pid, "Gid").c_str(), nullptr, 10));
  facts.command_line = command_line_of(pid);
  std::error_code ec;
  facts.exe = std::filesystem::read_symlink(proc + "/exe", ec).string();
  facts.machine = elf_machine(proc + "/exe").value_or(0);
  if (auto maps = inject::read_proc_maps(pid); maps.ok()) {
    for (const inject::MapEntry& mapping : *maps) {
      const std::string name = inject::path_basename(mapping.path);
      if (name.rfind("libcudart.so", 0) == 0 || name.rfind("libcuda.so", 0) == 0) facts.cuda_loaded = true;
      if (name.rfind("libsyncscope.so", 0) == 0) facts.recorder_loaded = true;
    }
  }
  if (proc_status_field(pid, "State").rfind("Z", 0) == 0) {
    return absl::NotFoundError("process " + std::to_string(pid) + " has exited (zombie)");
  }
  return facts;
}

absl::Status check_attachable(const ProcessFacts& facts) {
  const std::string who = "process " + std::to_string(facts.pid) + " (" +
                          (facts.command_line.empty() ? facts.exe : facts.command_line.substr(0, 80)) + ")";
  // Refused here, before anything is injected (docs/security.md): the
  // recorder's endpoint serves only the process's own user, and root.
  if (geteuid() != 0 && facts.uid != geteuid()) {
    return absl::PermissionDeniedError(who + " belongs to uid " + std::to_string(facts.uid) +
                                       "; syncscope attaches only to your own processes (or as root)");
  }
  uint16_t ours = elf_machine("/proc/self/exe").value_or(0);
  if (facts.machine != 0 && ours != 0 && facts.machine != ours) {
    return absl::FailedPreconditionError(who + " is " + machine_name(facts.machine) + " but this syncscope is " +
                                         machine_name(ours) + ": use a syncscope built for its architecture");
  }
  if (!facts.cuda_loaded && !facts.recorder_loaded) {
    return absl::FailedPreconditionError(who +
                                         " has no CUDA library loaded (libcudart, libcuda): not a CUDA process, "
                                         "nothing to record");
  }
  return absl::OkStatus();
}

std::vector<pid_t> find_processes(const std::string& pattern) {
  std::set<pid_t> excluded;
  for (pid_t p = getpid(); p > 1 && excluded.insert(p).second; p = parent_of(p)) {
  }
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = static_cast<pid_t>(std::atoi(name.c_str()));
    if (excluded.count(pid) != 0) continue;
    if (command_line_of(pid).find(pattern) != std::string::npos) found.push_back(pid);
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace syncscope
