// Broken and busy conditions for the recorder (docs/robustness.md): many
// threads issuing CUDA calls at once, a storm of forked workers (each calls
// CUDA once, as DataLoader workers might touch it), then the exit code given,
// or an exec of another (non-CUDA) program in place of exiting.
//   thread_storm THREADS LAUNCHES FORKS EXIT_CODE [exec PROGRAM ARGS...]
// Each thread: its own stream, LAUNCHES kernels, one stream sync. Prints one
// line before it exits (or execs): the run must leave it, and the status, alone.
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "common.cuh"

__attribute__((noinline)) void worker(int launches) {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  for (int i = 0; i < launches; ++i) syncscope_spin<<<1, 1, 0, s>>>(100);
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaStreamDestroy(s));
  KEEP_FRAME();
}

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: thread_storm THREADS LAUNCHES FORKS EXIT_CODE [exec PROGRAM ARGS...]\n");
    return 2;
  }
  const int threads = std::atoi(argv[1]), launches = std::atoi(argv[2]), forks = std::atoi(argv[3]);
  const int code = std::atoi(argv[4]);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker, launches);
  for (std::thread& t : pool) t.join();
  std::fflush(stdout);
  std::vector<pid_t> children;
  for (int f = 0; f < forks; ++f) {
    pid_t pid = fork();
    if (pid == 0) {
      void* device = nullptr;
      cudaError_t e = cudaMalloc(&device, 64);  // fails on a real GPU after fork: recorded all the same
      if (e == cudaSuccess) cudaFree(device);
      std::_Exit(0);
    }
    if (pid > 0) children.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::printf("thread_storm: %d threads x %d launches, %d children (%d failed)\n", threads, launches, forks, failed);
  std::fflush(stdout);
  if (argc > 6 && std::string(argv[5]) == "exec") {
    execv(argv[6], argv + 6);
    std::perror("thread_storm: exec");
    return 127;
  }
  return code;
}
