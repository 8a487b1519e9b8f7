// Where libcupti.so.13 is (docs/gpu-timeline.md): an explicit path, one
// already loaded (PyTorch's), beside the loaded runtime (the wheel layouts),
// then the loader's search and the toolkit named by CUDA_HOME/CUDA_PATH.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "preload/gpu_timeline/cupti_timeline.h"
#include "preload/core/loaded_objects.h"
#include "trace/environment.h"

namespace syncscope::preload {
namespace {

constexpr const char* kCuptiName = "libcupti.so.13";

std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

bool ends_with(const std::string& text, const char* suffix) {
  size_t n = std::strlen(suffix);
  return text.size() >= n && text.compare(text.size() - n, n, suffix) == 0;
}

void* try_open(const std::string& path, std::string* opened) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle != nullptr) *opened = path;
  return handle;
}

}  // namespace

void* open_cupti_library(std::string* path, std::string* why) {
  if (const char* explicit_path = std::getenv(env::kCuptiLibrary); explicit_path && *explicit_path) {
    if (void* handle = try_open(explicit_path, path)) return handle;
    const char* error = dlerror();
    *why =
        std::string("cannot load SYNCSCOPE_CUPTI_LIBRARY=") + explicit_path + (error ? std::string(": ") + error : "");
    return nullptr;
  }
  // Already in the process (PyTorch's libtorch_cuda needs it for Kineto).
  if (void* handle = dlopen(kCuptiName, RTLD_NOW | RTLD_NOLOAD)) {
    std::string loaded = loaded_object_path(kCuptiName);
    *path = loaded.empty() ? kCuptiName : loaded;
    return handle;
  }
  std::vector<std::string> candidates;
  std::string runtime = loaded_object_path("libcudart.so.13");
  if (!runtime.empty()) {
    std::string dir = directory_of(runtime);
    candidates.push_back(dir + "/" + kCuptiName);  // CUDA 13 wheels (nvidia/cu13/lib), the fake in CI
    if (ends_with(dir, "/cuda_runtime/lib")) {     // wheels with one package per library
      candidates.push_back(dir.substr(0, dir.size() - std::strlen("cuda_runtime/lib")) + "cuda_cupti/lib/" +
                           kCuptiName);
    }
    candidates.push_back(dir + "/../extras/CUPTI/lib64/" + kCuptiName);  // a toolkit's lib64
  }
  candidates.push_back(kCuptiName);  // LD_LIBRARY_PATH, the loader's cache
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* home = std::getenv(variable);
    if (home == nullptr || *home == '\0') continue;
    candidates.push_back(std::string(home) + "/extras/CUPTI/lib64/" + kCuptiName);
    candidates.push_back(std::string(home) + "/lib64/" + kCuptiName);
  }
  for (const std::string& candidate : candidates) {
    if (void* handle = try_open(candidate, path)) return handle;
  }
  *why = std::string(kCuptiName) + " not found (beside " + (runtime.empty() ? "no loaded libcudart" : runtime) +
         ", on the loader's path, or under CUDA_HOME)";
  return nullptr;
}

}  // namespace syncscope::preload
