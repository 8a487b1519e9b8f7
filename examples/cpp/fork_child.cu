// A parent that uses CUDA, then forks a child that calls CUDA on its own (as
// a worker pool might): each must leave its own trace. The real runtime does
// not support CUDA in a child forked after the parent initialised it: there
// the child's calls fail (and are recorded, with their error); the fake
// runtime lets them succeed.
#include <sys/wait.h>
#include <unistd.h>

#include "common.cuh"

// Returns the first error (cudaSuccess when all calls worked).
__attribute__((noinline)) cudaError_t child_work() {
  void* device = nullptr;
  int host[256] = {};
  cudaError_t first = cudaMalloc(&device, sizeof(host));
  if (first != cudaSuccess) return first;  // real GPU: CUDA is unusable after fork
  CHECK(cudaMemcpy(device, host, sizeof(host), cudaMemcpyHostToDevice));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(device));
  KEEP_FRAME();
  return cudaSuccess;
}

int main() {
  void* device;
  CHECK(cudaMalloc(&device, 1024));
  CHECK(cudaDeviceSynchronize());
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    cudaError_t e = child_work();
    std::printf("fork_child: child %d: %s\n", static_cast<int>(getpid()),
                e == cudaSuccess ? "CUDA calls succeeded" : cudaGetErrorName(e));
    std::exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(cudaFree(device));
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::printf("fork_child: parent done, child %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
