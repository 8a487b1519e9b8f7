// A little CUDA work, then the exit code given: syncscope run must return it.
//   exit_code [code=0]
#include "common.cuh"

int main(int argc, char** argv) {
  int code = argc > 1 ? std::atoi(argv[1]) : 0;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  syncscope_spin<<<1, 1, 0, s>>>(1000);
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaStreamDestroy(s));
  std::printf("exit_code: exiting with %d\n", code);
  return code;
}
