// Runs stream syncs for `seconds`; once `trigger` exists it dlopens
// `plugin` and calls its late_plugin_step() every step from then on.
//   late_plugin_loop SECONDS TRIGGER_FILE PLUGIN
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(std::atoi(argv[1]));
  int (*plugin_step)() = nullptr;
  long steps = 0, plugin_steps = 0;
  while (std::chrono::steady_clock::now() < end) {
    cudaStreamSynchronize(nullptr);
    if (plugin_step == nullptr && access(argv[2], F_OK) == 0) {
      void* handle = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) {
        std::fprintf(stderr, "late_plugin_loop: %s\n", dlerror());
        return 3;
      }
      plugin_step = reinterpret_cast<int (*)()>(dlsym(handle, "late_plugin_step"));
    }
    if (plugin_step != nullptr) {
      plugin_step();
      ++plugin_steps;
    }
    ++steps;
    usleep(500);
  }
  std::printf("late_plugin_loop: %ld steps, %ld with the plugin\n", steps, plugin_steps);
  return 0;
}
