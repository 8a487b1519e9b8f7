#include "tools/preload_locator.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "trace/environment.h"

namespace syncscope {

std::vector<std::string> preload_candidates(const std::string& env_override, const std::string& executable_path) {
  if (!env_override.empty()) return {env_override};
  std::filesystem::path dir = std::filesystem::path(executable_path).parent_path();
  return {(dir / ".." / "lib" / "libsyncscope.so").lexically_normal().string(),
          (dir / "libsyncscope.so").lexically_normal().string()};
}

std::string locate_preload(std::vector<std::string>* tried) {
  const char* env = std::getenv(env::kPreload);
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  for (const std::string& candidate : preload_candidates(env ? env : "", self)) {
    tried->push_back(candidate);
    if (std::filesystem::is_regular_file(candidate, ec)) {
      return std::filesystem::canonical(candidate, ec).string();
    }
  }
  return {};
}

std::string python_hooks_dir_for(const std::string& preload_path) {
  std::filesystem::path dir = std::filesystem::path(preload_path).parent_path() / "syncscope-python";
  std::error_code error;
  return std::filesystem::exists(dir / "sitecustomize.py", error) ? dir.string() : std::string();
}

}  // namespace syncscope
