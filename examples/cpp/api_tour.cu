// Calls every CUDA runtime entry point syncscope intercepts, a known number
// of times, so tests can check the recording exactly
// (tests/gpu/api_tour_expected.json holds the same counts).
//
//   API                          calls  notes
//   cudaDeviceSynchronize          1
//   cudaStreamSynchronize          1    stream s1 (in tour_synchronize_all)
//   cudaEventSynchronize           1    (in tour_synchronize_all)
//   cudaStreamQuery                1
//   cudaEventQuery                 1
//   cudaStreamWaitEvent            1    s2 waits for an event on s1
//   cudaEventRecord                1    on s1
//   cudaMemcpy                     1    4096 B H2D from pageable memory
//   cudaMemcpyAsync                2    4096 B H2D pinned on s1; 4096 B D2H pageable on s1
//   cudaMemcpy2D                   1    16 rows x 64 B = 1024 B D2D
//   cudaMemcpy2DAsync              1    1024 B D2D on s1
//   cudaMemcpyPeer                 1    1024 B device 0 -> 0
//   cudaMemcpyPeerAsync            1    1024 B on s1
//   cudaMemcpyToSymbol             1    64 B
//   cudaMemcpyFromSymbol           1    64 B
//   cudaMemset                     1    4096 B
//   cudaMemsetAsync                1    4096 B on s1
//   cudaMalloc                     2    4096 B each
//   cudaFree                       3    the two cudaMalloc buffers and the managed one
//   cudaMallocAsync                1    4096 B on s1
//   cudaFreeAsync                  1    on s1
//   cudaMallocManaged              1    4096 B
//   cudaMallocHost                 1    4096 B
//   cudaHostAlloc                  1    4096 B
//   cudaFreeHost                   2
//   cudaHostRegister               1    4096 B of malloc'd memory
//   cudaHostUnregister             1
//   __cudaLaunchKernel             2    <<<>>> on s1, and once more inside graph capture on s2
//   cudaLaunchKernel               1    explicit, on s1
//   cudaLaunchKernelExC            1    on s1
//   cudaLaunchCooperativeKernel    1    on s1
//   cudaGraphLaunch                1    the captured graph, on s2
//   cudaLaunchHostFunc             1    on s1
//   cudaStreamCreate               1    s1 (blocking)
//   cudaStreamCreateWithFlags      1    s2 (non-blocking)
//   cudaStreamCreateWithPriority   1    s3
//   cudaStreamDestroy              3
//   cudaStreamBeginCapture         1    s2
//   cudaStreamEndCapture           1    s2
//   __cudaLaunchKernel_ptsz        1    api_tour_ptsz.cu (built with --default-stream per-thread)
//   cudaLaunchKernel_ptsz          1    api_tour_ptsz.cu
//   cudaLaunchKernelExC_ptsz       1    api_tour_ptsz.cu
//   cudaMemcpyAsync_ptsz           1    4096 B D2D, api_tour_ptsz.cu
//   cudaStreamSynchronize_ptsz     1    api_tour_ptsz.cu
#include <cstdlib>
#include <cstring>

#include "common.cuh"

void tour_per_thread_stream(void* dst, const void* src, size_t bytes);  // api_tour_ptsz.cu

__device__ int tour_symbol[16];

void CUDART_CB tour_host_callback(void* flag) { *static_cast<int*>(flag) = 1; }

__attribute__((noinline)) void tour_synchronize_all(cudaStream_t s1, cudaEvent_t event) {
  CHECK(cudaStreamSynchronize(s1));
  CHECK(cudaEventSynchronize(event));
  CHECK(cudaDeviceSynchronize());
  KEEP_FRAME();
}

int main() {
  constexpr size_t kBytes = 4096;
  cudaStream_t s1, s2, s3;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithPriority(&s3, cudaStreamNonBlocking, 0));

  void *d_a, *d_b, *d_async, *managed, *pinned_a, *pinned_b;
  CHECK(cudaMalloc(&d_a, kBytes));
  CHECK(cudaMalloc(&d_b, kBytes));
  CHECK(cudaMallocAsync(&d_async, kBytes, s1));
  CHECK(cudaMallocManaged(&managed, kBytes, cudaMemAttachGlobal));
  CHECK(cudaMallocHost(&pinned_a, kBytes));
  CHECK(cudaHostAlloc(&pinned_b, kBytes, cudaHostAllocDefault));
  void* pageable = std::malloc(kBytes);
  void* registered = std::aligned_alloc(4096, kBytes);
  std::memset(pageable, 0, kBytes);
  CHECK(cudaHostRegister(registered, kBytes, cudaHostRegisterDefault));

  // Copies and memsets.
  CHECK(cudaMemcpy(d_a, pageable, kBytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyAsync(d_b, pinned_a, kBytes, cudaMemcpyHostToDevice, s1));
  CHECK(cudaMemcpyAsync(pageable, d_b, kBytes, cudaMemcpyDeviceToHost, s1));
  CHECK(cudaMemcpy2D(d_b, 64, d_a, 64, 64, 16, cudaMemcpyDeviceToDevice));
  CHECK(cudaMemcpy2DAsync(d_b, 64, d_a, 64, 64, 16, cudaMemcpyDeviceToDevice, s1));
  CHECK(cudaMemcpyPeer(d_b, 0, d_a, 0, 1024));
  CHECK(cudaMemcpyPeerAsync(d_b, 0, d_a, 0, 1024, s1));
  int host_symbol[16] = {1, 2, 3};
  CHECK(cudaMemcpyToSymbol(tour_symbol, host_symbol, sizeof(host_symbol), 0, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyFromSymbol(host_symbol, tour_symbol, sizeof(host_symbol), 0, cudaMemcpyDeviceToHost));
  CHECK(cudaMemset(d_a, 0, kBytes));
  CHECK(cudaMemsetAsync(d_b, 0, kBytes, s1));

  // Launches.
  syncscope_spin<<<1, 1, 0, s1>>>(2000);
  long long ns = 2000;
  void* args[] = {&ns};
  CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(syncscope_spin), dim3(1), dim3(1), args, 0, s1));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(1);
  config.stream = s1;
  CHECK(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(syncscope_spin), args));
  CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(syncscope_spin), dim3(1), dim3(1), args, 0, s1));
  int callback_ran = 0;
  CHECK(cudaLaunchHostFunc(s1, tour_host_callback, &callback_ran));

  // Events: s2 waits for s1.
  cudaEvent_t event;
  CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  CHECK(cudaEventRecord(event, s1));
  CHECK(cudaStreamWaitEvent(s2, event, 0));
  (void)cudaStreamQuery(s1);  // cudaErrorNotReady is a fine answer
  (void)cudaEventQuery(event);

  // Graph capture and replay on s2.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s2, cudaStreamCaptureModeGlobal));
  syncscope_spin<<<1, 1, 0, s2>>>(2000);
  CHECK(cudaStreamEndCapture(s2, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, s2));

  // The per-thread default stream twins.
  tour_per_thread_stream(d_b, d_a, kBytes);

  tour_synchronize_all(s1, event);

  CHECK(cudaFreeAsync(d_async, s1));
  CHECK(cudaHostUnregister(registered));
  CHECK(cudaFreeHost(pinned_a));
  CHECK(cudaFreeHost(pinned_b));
  CHECK(cudaFree(managed));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaEventDestroy(event));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaStreamDestroy(s3));
  std::free(pageable);
  std::free(registered);
  std::printf("api_tour: done (host callback %s, symbol[2]=%d)\n", callback_ran ? "ran" : "did not run",
              host_symbol[2]);
  return callback_ran ? 0 : 1;
}
