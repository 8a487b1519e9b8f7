#include "tools/recorder_status.h"

#include <sys/stat.h>

#include <cstdlib>

#include "trace/recording_status.h"

namespace syncscope {
namespace {

bool parse_line(const std::string& line, uint32_t* pid, std::string* kind, std::string* detail) {
  size_t space = line.find(' ');
  if (space == 0 || space == std::string::npos || space > 10) return false;
  unsigned long long value = 0;
  for (size_t i = 0; i < space; ++i) {
    if (line[i] < '0' || line[i] > '9') return false;
    value = value * 10 + static_cast<unsigned>(line[i] - '0');
  }
  if (value == 0 || value > UINT32_MAX) return false;
  size_t kind_end = line.find(' ', space + 1);
  *kind = line.substr(space + 1, kind_end == std::string::npos ? std::string::npos : kind_end - space - 1);
  if (kind->empty()) return false;
  for (char c : *kind) {
    if (!((c >= 'a' && c <= 'z') || c == '-')) return false;
  }
  *detail = kind_end == std::string::npos ? "" : line.substr(kind_end + 1);
  *pid = static_cast<uint32_t>(value);
  return true;
}

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

}  // namespace

RecorderStatus parse_recorder_status(const std::string& text) {
  RecorderStatus status;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    uint32_t pid = 0;
    std::string kind, detail;
    if (!parse_line(line, &pid, &kind, &detail)) {
      add_problem(&status.problems, {0, kStatusMalformed, line});
    } else if (kind == kStatusTraceOpened) {
      status.traces_opened.emplace_back(pid, detail);
    } else {
      add_problem(&status.problems, {pid, kind, detail});
    }
  }
  return status;
}

std::vector<RecordingProblem> recording_problems(const RecorderStatus& status, const std::string& dir) {
  std::vector<RecordingProblem> problems = status.problems;
  if (!dir.empty() && !exists(dir)) {
    // Every trace went with it; the processes that noticed are listed already.
    add_problem(&problems, {0, kStatusDirectoryRemoved, dir});
    return problems;
  }
  for (const auto& [pid, path] : status.traces_opened) {
    if (!exists(path)) add_problem(&problems, {pid, kStatusTraceRemoved, path});
  }
  return problems;
}

}  // namespace syncscope
