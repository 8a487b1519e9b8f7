#include "inject/proc_maps.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace syncscope::inject {

std::vector<MapEntry> parse_proc_maps(const std::string& text) {
  std::vector<MapEntry> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    MapEntry e;
    char perms[8] = {};
    int path_at = 0;
    // start-end perms offset dev inode [path]; %n marks where the path begins.
    if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s%n", &e.start, &e.end, perms,
                    &e.offset, &path_at) < 4 ||
        path_at == 0) {
      continue;
    }
    e.perms = perms;
    // The path is the rest of the line after the padding; it may hold spaces.
    size_t p = line.find_first_not_of(' ', static_cast<size_t>(path_at));
    if (p != std::string::npos) e.path = line.substr(p);
    out.push_back(std::move(e));
  }
  return out;
}

absl::StatusOr<std::vector<MapEntry>> read_proc_maps(pid_t pid) {
  std::string file = absl::StrCat("/proc/", pid, "/maps");
  std::ifstream in(file);
  if (!in) {
    int err = errno;
    return absl::UnavailableError(absl::StrCat("cannot read ", file, ": ", std::strerror(err)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_proc_maps(text.str());
}

std::string read_small_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string proc_status_field(pid_t pid, const std::string& field) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) != 0) continue;
    size_t v = line.find_first_not_of(" \t", field.size() + 1);
    return v == std::string::npos ? "" : line.substr(v);
  }
  return "";
}

std::string path_basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::optional<LoadedObject> find_loaded_object(const std::vector<MapEntry>& maps,
                                               const std::function<bool(const std::string& basename)>& matches) {
  std::optional<LoadedObject> found;
  const MapEntry* lowest = nullptr;
  bool have_offset_zero = false;
  for (const MapEntry& e : maps) {
    // Only real files: "[vdso]", "[heap]" and anonymous memory have no '/'.
    if (e.path.empty() || e.path[0] != '/') continue;
    if (!found) {
      if (!matches(path_basename(e.path))) continue;
      found = LoadedObject{e.path, 0, e.start, e.end};
    } else if (e.path != found->path) {
      continue;
    }
    if (lowest == nullptr || e.start < lowest->start) lowest = &e;
    if (e.start < found->low) found->low = e.start;
    if (e.end > found->high) found->high = e.end;
    if (e.offset == 0 && !have_offset_zero) {
      found->base = e.start;
      have_offset_zero = true;
    }
  }
  if (found && !have_offset_zero) found->base = lowest->start - lowest->offset;
  return found;
}

}  // namespace syncscope::inject
