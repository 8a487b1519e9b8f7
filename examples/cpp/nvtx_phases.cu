// NVTX ranges around a training loop's phases, as torch.cuda.nvtx or
// nvtx3::scoped_range make them: each step a "train_step" range holding
// "forward" and "backward"; every 5th step an "eval" range (through an NVTX
// domain, as nvtx3's C++ API does) ending in a sync.
//   nvtx_phases [steps=40]
// Ranges: N train_step (depth 0), N forward and N backward (depth 1),
// N/5 eval (depth 0, domain "nvtx_phases").
#include <nvtx3/nvToolsExt.h>

#include "common.cuh"

int main(int argc, char** argv) {
  int steps = iterations(argc, argv, 40);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  nvtxDomainHandle_t domain = nvtxDomainCreateA("nvtx_phases");
  int evals = 0;
  for (int step = 0; step < steps; ++step) {
    nvtxRangePushA("train_step");
    nvtxRangePushA("forward");
    for (int k = 0; k < 2; ++k) syncscope_spin<<<1, 1, 0, s>>>(5000);
    nvtxRangePop();
    nvtxRangePushA("backward");
    for (int k = 0; k < 3; ++k) syncscope_spin<<<1, 1, 0, s>>>(5000);
    nvtxRangePop();
    nvtxRangePop();
    if (step % 5 == 4) {
      nvtxEventAttributes_t attributes{};
      attributes.version = NVTX_VERSION;
      attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
      attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
      attributes.message.ascii = "eval";
      nvtxDomainRangePushEx(domain, &attributes);
      syncscope_spin<<<1, 1, 0, s>>>(5000);
      CHECK(cudaStreamSynchronize(s));
      nvtxDomainRangePop(domain);
      ++evals;
    }
  }
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaStreamDestroy(s));
  std::printf("nvtx_phases: %d steps, %d evals\n", steps, evals);
  return 0;
}
