#include "tools/output_dir.h"

#include <stdlib.h>
#include <sys/stat.h>
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
  auto unusable = [&](const std::string& error) {
    spdlog::error("{}", error);
    if (reason != nullptr) *reason = error;
    return OutputDirState::kUnusable;
  };
  const uid_t me = geteuid();
  // A link another user planted (in /tmp, say) would send the traces, and
  // --force's deletions, into a directory of its choosing.
  struct stat link;
  if (lstat(dir.c_str(), &link) == 0 && S_ISLNK(link.st_mode) && link.st_uid != me && link.st_uid != 0) {
    return unusable(dir + " is a symbolic link owned by another user (uid " + std::to_string(link.st_uid) +
                    "); name a directory of your own");
  }
  std::error_code ec;
  std::vector<std::filesystem::path> old;
  struct stat st;
  const bool existed = stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  // Another user's directory in a world-writable one (/tmp): made there
  // before us, so that our traces land where they can rename or read them.
  struct stat parent;
  const std::string parent_dir = std::filesystem::path(dir).lexically_normal().parent_path().string();
  if (existed && st.st_uid != me && st.st_uid != 0 &&
      stat(parent_dir.empty() ? "." : parent_dir.c_str(), &parent) == 0 && (parent.st_mode & S_IWOTH) != 0) {
    return unusable(dir + " belongs to another user (uid " + std::to_string(st.st_uid) +
                    ") in a world-writable directory; name a directory of your own");
  }
  if (existed) {
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
  if (!old.empty()) {
    // --force deletes only syncscope's own files: plain files of ours, in a
    // directory of ours. Anything else is left and the run refused.
    if (st.st_uid != me) {
      return unusable("--force deletes traces only in a directory you own; " + dir + " belongs to uid " +
                      std::to_string(st.st_uid));
    }
    for (const auto& path : old) {
      struct stat file;
      if (lstat(path.c_str(), &file) != 0) continue;
      if (!S_ISREG(file.st_mode) || file.st_uid != me) {
        return unusable("--force leaves " + path.string() + " alone (" +
                        (S_ISREG(file.st_mode) ? "owned by uid " + std::to_string(file.st_uid) : "not a plain file") +
                        "); remove it yourself or choose another -o DIR");
      }
    }
    for (const auto& path : old) std::filesystem::remove(path, ec);
  }
  if (!existed) {
    // Its parents as mkdir -p would make them; the directory itself only
    // its owner's: traces hold the command line.
    std::filesystem::path parent = std::filesystem::path(dir).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (!ec && mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      ec = std::error_code(errno, std::generic_category());
    }
    if (ec) return unusable("cannot create " + dir + ": " + ec.message());
  }
  std::string error;
  if (!probe_writable(dir, &error)) return unusable(error);
  return OutputDirState::kReady;
}

}  // namespace syncscope
