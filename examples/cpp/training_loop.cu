// Shaped like a real training script rather than a uniform loop: identical
// layers (several kernels each, forward and backward), gradient
// accumulation, a pinned batch upload every micro-batch, the loss read back
// for logging every 10 steps (the hidden sync), an "eval" every 50 steps
// (forward only, then a sync), and a "checkpoint" every 100 steps (a fresh
// device buffer, a copy to pageable host memory, a free). Most of its calls
// are launches: the case for aggregated recording (docs/trace-format.md).
//   training_loop [steps=200] [layers=12] [launches_per_second=0: as fast as it goes]
#include <chrono>
#include <thread>
#include <vector>

#include "common.cuh"

// One kernel per kind of layer work, so each launch names its own kernel.
template <int Kind>
__global__ void layer_op(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + static_cast<float>(Kind);
}

constexpr int kWidth = 1024;
constexpr int kMicroBatches = 4;

__attribute__((noinline)) void forward(float* act, int layers, cudaStream_t s) {
  for (int l = 0; l < layers; ++l) {
    layer_op<0><<<4, 256, 0, s>>>(act, kWidth);  // matmul
    layer_op<1><<<4, 256, 0, s>>>(act, kWidth);  // bias
    layer_op<2><<<4, 256, 0, s>>>(act, kWidth);  // activation
    layer_op<3><<<4, 256, 0, s>>>(act, kWidth);  // norm
  }
  KEEP_FRAME();
}

__attribute__((noinline)) void backward(float* act, int layers, cudaStream_t s) {
  for (int l = 0; l < layers; ++l) {
    layer_op<4><<<4, 256, 0, s>>>(act, kWidth);  // grad of norm
    layer_op<5><<<4, 256, 0, s>>>(act, kWidth);  // grad of activation
    layer_op<6><<<4, 256, 0, s>>>(act, kWidth);  // grad input
    layer_op<7><<<4, 256, 0, s>>>(act, kWidth);  // grad weight
  }
  KEEP_FRAME();
}

__attribute__((noinline)) void optimizer_step(float* params, int layers, cudaStream_t s) {
  for (int l = 0; l < layers; ++l) {
    layer_op<8><<<4, 256, 0, s>>>(params, kWidth);  // moments
    layer_op<9><<<4, 256, 0, s>>>(params, kWidth);  // update
  }
  KEEP_FRAME();
}

__attribute__((noinline)) float log_loss(const float* device, float* pinned, cudaStream_t s) {
  CHECK(cudaMemcpyAsync(pinned, device, sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));  // loss.item()
  return *pinned;
}

__attribute__((noinline)) void evaluate(float* act, float* batch, const float* pinned, int layers, cudaStream_t s) {
  for (int b = 0; b < 8; ++b) {
    CHECK(cudaMemcpyAsync(batch, pinned, kWidth * sizeof(float), cudaMemcpyHostToDevice, s));  // an eval batch
    forward(act, layers, s);
  }
  CHECK(cudaStreamSynchronize(s));  // the metrics
}

__attribute__((noinline)) void checkpoint(const float* params, std::vector<float>& host) {
  float* staging;
  CHECK(cudaMalloc(&staging, kWidth * sizeof(float)));
  CHECK(cudaMemcpy(staging, params, kWidth * sizeof(float), cudaMemcpyDeviceToDevice));
  CHECK(cudaMemcpy(host.data(), staging, kWidth * sizeof(float), cudaMemcpyDeviceToHost));  // pageable
  CHECK(cudaFree(staging));
}

int main(int argc, char** argv) {
  const int steps = iterations(argc, argv, 200);
  const int layers = argc > 2 ? std::atoi(argv[2]) : 12;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *act, *params, *batch;
  float* pinned;
  CHECK(cudaMalloc(&act, kWidth * sizeof(float)));
  CHECK(cudaMalloc(&params, kWidth * sizeof(float)));
  CHECK(cudaMalloc(&batch, kWidth * sizeof(float)));
  CHECK(cudaMallocHost(&pinned, kWidth * sizeof(float)));
  std::vector<float> host(kWidth);
  float loss = 0;
  // A steady launch rate, for soak runs (scripts/soak.sh): sleeps whenever
  // the launches so far are ahead of it.
  const double rate = argc > 3 ? std::atof(argv[3]) : 0;
  const auto began = std::chrono::steady_clock::now();
  const long long launches_per_step = kMicroBatches * 8LL * layers + 2LL * layers;
  for (int step = 1; step <= steps; ++step) {
    if (rate > 0) {
      std::this_thread::sleep_until(began + std::chrono::duration<double>(launches_per_step * (step - 1) / rate));
    }
    for (int micro = 0; micro < kMicroBatches; ++micro) {
      CHECK(cudaMemcpyAsync(batch, pinned, kWidth * sizeof(float), cudaMemcpyHostToDevice, s));
      forward(act, layers, s);
      backward(act, layers, s);
    }
    optimizer_step(params, layers, s);
    if (step % 10 == 0) loss = log_loss(act, pinned, s);
    if (step % 50 == 0) evaluate(act, batch, pinned, layers, s);
    if (step % 100 == 0) checkpoint(params, host);
  }
  CHECK(cudaStreamSynchronize(s));
  std::printf("training_loop: %d steps of %d layers, last loss %g\n", steps, layers, loss);
  return 0;
}
