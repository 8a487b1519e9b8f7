// A parent that uses CUDA, then forks a child that uses CUDA on its own (as
// a launcher or a worker pool might): each must leave its own trace.
#include <sys/wait.h>
#include <unistd.h>

#include "common.cuh"

__attribute__((noinline)) void child_work() {
  void* device;
  int host[256] = {};
  CHECK(cudaMalloc(&device, sizeof(host)));
  CHECK(cudaMemcpy(device, host, sizeof(host), cudaMemcpyHostToDevice));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(device));
  KEEP_FRAME();
}

int main() {
  void* device;
  CHECK(cudaMalloc(&device, 1024));
  CHECK(cudaDeviceSynchronize());
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    child_work();
    std::printf("fork_child: child %d done\n", static_cast<int>(getpid()));
    std::exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(cudaFree(device));
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::printf("fork_child: parent done, child %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
