#include "tools/output_dir.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <vector>

#include <spdlog/spdlog.h>

#include "trace/format.h"

namespace syncscope {
namespace {

// As this process: the recorded command may run as another user, or lose
// the directory later; the recorder reports those (trace/recording_status.h).
bool probe_writable(const std::string& dir, std::string* error) {
  std::string name = dir + "/.syncscope-probe-XXXXXX";
  int fd = mkstemp(name.data());
  if (fd < 0) {
    *error = "cannot write to " + dir + ": " + std::strerror(errno);
    return false;
  }
  // One byte: a full disk often still has room for an empty file.
  ssize_t written = write(fd, "x", 1);
  int err = written == 1 ? 0 : written < 0 ? errno : EIO;
  if (close(fd) != 0 && err == 0) err = errno;
  unlink(name.c_str());
  if (err != 0) {
    *error = "cannot write to " + dir + ": " + std::strerror(err);
    return false;
  }
  return true;
}

}  // namespace

std::string default_output_dir(const std::string& prefix) {
  char stamp[64];
  std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof(stamp), "-%Y%m%d-%H%M%S", std::localtime(&now));
  return prefix + stamp;
}

OutputDirState prepare_output_dir(const std::string& dir, bool force, std::string* reason) {
  std::error_code ec;
  std::vector<std::filesystem::path> old;
  if (std::filesystem::is_directory(dir, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() == kTraceFileSuffix || entry.path().filename() == kProcessesWithoutCudaFile) {
        old.push_back(entry.path());
      }
    }
  }
  if (!old.empty() && !force) {
    spdlog::error("{} already holds {} trace file(s); choose another -o DIR or pass --force to replace them", dir,
                  old.size());
    return OutputDirState::kHoldsTraces;
  }
  for (const auto& path : old) std::filesystem::remove(path, ec);
  std::string error;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    error = "cannot create " + dir + ": " + ec.message();
  } else {
    probe_writable(dir, &error);
  }
  if (!error.empty()) {
    spdlog::error("{}", error);
    if (reason != nullptr) *reason = error;
    return OutputDirState::kUnusable;
  }
  return OutputDirState::kReady;
}

}  // namespace syncscope
