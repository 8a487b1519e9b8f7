// The .item() pattern: every step reads a 4-byte value back to the host and
// waits for it, so the host blocks on all queued kernels each step.
//   hidden_sync_loop [steps=200]
// Calls: N x cudaMemcpyAsync (4 B, D2H, pinned, stream s), N x cudaStreamSynchronize(s),
// 3N syncscope_spin launches (20 us each).
#include "common.cuh"

__attribute__((noinline)) float read_loss_value(const float* device_loss, float* pinned, cudaStream_t s) {
  CHECK(cudaMemcpyAsync(pinned, device_loss, sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  KEEP_FRAME();
  return *pinned;
}

int main(int argc, char** argv) {
  int steps = iterations(argc, argv, 200);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *loss, *pinned;
  CHECK(cudaMalloc(&loss, sizeof(float)));
  CHECK(cudaMallocHost(&pinned, sizeof(float)));
  float total = 0;
  for (int step = 0; step < steps; ++step) {
    for (int k = 0; k < 3; ++k) syncscope_spin<<<1, 1, 0, s>>>(20000);
    total += read_loss_value(loss, pinned, s);
  }
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(loss));
  CHECK(cudaStreamDestroy(s));
  std::printf("hidden_sync_loop: %d steps, %d syncs (sum %.1f)\n", steps, steps, total);
  return 0;
}
