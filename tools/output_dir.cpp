#include "tools/output_dir.h"

#include <ctime>
#include <filesystem>
#include <vector>

#include <spdlog/spdlog.h>

#include "trace/format.h"

namespace syncscope {

std::string default_output_dir(const std::string& prefix) {
  char stamp[64];
  std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof(stamp), "-%Y%m%d-%H%M%S", std::localtime(&now));
  return prefix + stamp;
}

bool prepare_output_dir(const std::string& dir, bool force) {
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
    return false;
  }
  for (const auto& path : old) std::filesystem::remove(path, ec);
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    spdlog::error("cannot create {}: {}", dir, ec.message());
    return false;
  }
  return true;
}

}  // namespace syncscope
