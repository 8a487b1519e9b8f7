// Reading /proc/PID/maps: which files a process has mapped, and where.
// Used by the injector to find the target's libc (for dlopen's address) and
// the address ranges of libc and the dynamic loader (for the safe-point check).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace syncscope::inject {

struct MapEntry {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t offset = 0;  // file offset of `start`
  std::string perms;    // "r-xp"
  std::string path;     // "" for anonymous memory, "[stack]", or a file path
};

// One mapped file: its load base and the span of all its mappings.
struct LoadedObject {
  std::string path;
  uint64_t base = 0;  // address that the file's virtual address 0 maps to
  uint64_t low = 0;   // lowest mapped address of the file
  uint64_t high = 0;  // end of its highest mapping
  bool contains(uint64_t address) const { return address >= low && address < high; }
};

// Parses the text of a maps file (pure, so it is unit-tested on fixed text).
std::vector<MapEntry> parse_proc_maps(const std::string& text);

// Reads and parses /proc/PID/maps. Errors name the errno (ESRCH, EACCES).
absl::StatusOr<std::vector<MapEntry>> read_proc_maps(pid_t pid);

// "/usr/lib/x86_64-linux-gnu/libc.so.6" -> "libc.so.6"; a " (deleted)" suffix
// (file replaced on disk after it was mapped) is kept, so callers can see it.
std::string path_basename(const std::string& path);

// The whole of a small file (a /proc entry); "" if it cannot be read.
std::string read_small_file(const std::string& path);

// A "Name:\tvalue" field of /proc/PID/status ("" when absent or unreadable).
std::string proc_status_field(pid_t pid, const std::string& field);

// The first mapped file (in address order) whose basename satisfies `matches`.
// base is the start of its mapping at file offset 0: the kernel places the
// file's first PT_LOAD (offset 0, vaddr 0 for shared objects) there, even when
// the lowest-addressed mapping of the path has a non-zero offset (a later
// segment mapped below, or the first page unmapped). Without an offset-0
// mapping base falls back to start - offset of the lowest mapping.
std::optional<LoadedObject> find_loaded_object(const std::vector<MapEntry>& maps,
                                               const std::function<bool(const std::string& basename)>& matches);

}  // namespace syncscope::inject
