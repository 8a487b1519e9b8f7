#include "trace/code_ownership.h"

#include "trace/source_paths.h"

namespace syncscope {
namespace {

// Packages that are PyTorch itself when installed: their frames are how an
// operation reaches the CUDA call, never the line to fix.
constexpr const char* kFrameworkPackages[] = {"torch", "triton", "functorch", "torchgen"};

bool under(const std::string& path, const std::string& prefix) {
  if (prefix.empty() || path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.size() == prefix.size() || prefix.back() == '/' || path[prefix.size()] == '/';
}

// The last path component of `prefix` ("/opt/vendor/mylib/" -> "mylib").
std::string last_component(std::string prefix) {
  while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
  const size_t slash = prefix.rfind('/');
  return slash == std::string::npos ? prefix : prefix.substr(slash + 1);
}

bool matches_any(const std::string& file, const std::vector<std::string>& prefixes, const std::string& cwd,
                 std::string* matched) {
  for (const std::string& prefix : prefixes) {
    if (under(file, absolute_source_path(prefix, cwd))) {
      if (matched != nullptr) *matched = prefix;
      return true;
    }
  }
  return false;
}

// The package a file under site-packages/ or dist-packages/ belongs to
// ("" when the file is not installed there).
std::string installed_package(const std::string& file) {
  size_t best = std::string::npos, length = 0;
  for (const char* marker : {"/site-packages/", "/dist-packages/"}) {
    const size_t at = file.rfind(marker);
    if (at != std::string::npos && (best == std::string::npos || at > best)) {
      best = at;
      length = std::char_traits<char>::length(marker);
    }
  }
  if (best == std::string::npos) return "";
  const size_t start = best + length, end = file.find('/', start);
  std::string package = file.substr(start, end == std::string::npos ? std::string::npos : end - start);
  // A single-module distribution (six.py): the module's name.
  if (end == std::string::npos && package.size() > 3 && package.compare(package.size() - 3, 3, ".py") == 0) {
    package.resize(package.size() - 3);
  }
  return package;
}

// /usr/lib/python3.12/json/decoder.py: "/lib/python3" then a version.
bool in_standard_library(const std::string& file) {
  for (size_t at = file.find("/lib/python3"); at != std::string::npos; at = file.find("/lib/python3", at + 1)) {
    const size_t next = at + 12;  // after "/lib/python3"
    if (next < file.size() && (file[next] == '.' || file[next] == '/')) return true;
  }
  return false;
}

}  // namespace

CodeOwnership code_owner(const std::string& file, const CodeOwnershipOptions& options, const std::string& cwd) {
  if (file.empty() || file == "?" || file.front() == '<') return {CodeOwner::kStdlib, ""};  // <frozen ...>, <string>
  if (file.find("/syncscope-python/") != std::string::npos) return {CodeOwner::kFramework, ""};
  const std::string path = absolute_source_path(file, cwd);
  if (matches_any(path, options.user_code, cwd, nullptr)) return {CodeOwner::kUser, ""};
  std::string matched;
  if (matches_any(path, options.library_code, cwd, &matched)) return {CodeOwner::kLibrary, last_component(matched)};
  const std::string package = installed_package(path);
  if (!package.empty()) {
    for (const char* framework : kFrameworkPackages) {
      if (package == framework) return {CodeOwner::kFramework, ""};
    }
    return {CodeOwner::kLibrary, package};
  }
  // PyTorch built from source (a checkout on PYTHONPATH): its package directory.
  if (path.find("/torch/") != std::string::npos) return {CodeOwner::kFramework, ""};
  if (in_standard_library(path)) return {CodeOwner::kStdlib, ""};
  return {CodeOwner::kUser, ""};
}

}  // namespace syncscope
