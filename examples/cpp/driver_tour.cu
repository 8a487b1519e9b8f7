// driver_tour: fetches CUDA driver functions in every way real software does
// and calls each a known number of times, so a test can check that the
// recorder saw exactly those calls (tests/gpu/driver_tour_expected.json):
//   (a) direct linkage to libcuda         cuMemAlloc, cuMemsetD8, cuLaunchKernel x3,
//                                         cuStreamSynchronize, cuMemcpyDtoH, cuMemFree
//   (b) dlopen + dlsym (Triton's way)     cuLaunchKernel x4, cuCtxSynchronize x2
//   (c) cuGetProcAddress_v2 by name       the expandable-segments set, once each:
//                                         cuMemAddressReserve, cuMemCreate, cuMemMap,
//                                         cuMemSetAccess, cuMemUnmap, cuMemRelease,
//                                         cuMemAddressFree; cuGraphLaunch x2;
//                                         cuLaunchKernel_ptsz x1 (per-thread flag)
//   (d) cudaGetDriverEntryPoint(ByVersion) (PyTorch's way): cuLaunchKernelEx x2,
//                                         cuMemAllocAsync, cuMemFreeAsync, cuStreamSynchronize
// Runs on a real GPU and on tests/fakecuda (fake libcudart + libcuda).
#include <cuda.h>
#include <dlfcn.h>

#include "common.cuh"

static __global__ void tour_noop() {}

#define CU_CHECK(call)                                                                      \
  do {                                                                                      \
    CUresult cu_check_ = (call);                                                            \
    if (cu_check_ != CUDA_SUCCESS) {                                                        \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, cu_check_); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

template <typename Fn>
static Fn proc(const char* name, cuuint64_t flags = CU_GET_PROC_ADDRESS_DEFAULT) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status;
  CU_CHECK(cuGetProcAddress(name, &fn, 12000, flags, &status));
  if (fn == nullptr || status != CU_GET_PROC_ADDRESS_SUCCESS) {
    std::fprintf(stderr, "cuGetProcAddress(%s) found nothing\n", name);
    std::exit(1);
  }
  return reinterpret_cast<Fn>(fn);
}

int main() {
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));  // creates the primary context the driver calls use
  CU_CHECK(cuInit(0));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUstream cu_stream = reinterpret_cast<CUstream>(stream);
  cudaFunction_t function;
  CHECK(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(&tour_noop)));
  CUfunction kernel = reinterpret_cast<CUfunction>(function);

  // (a) direct linkage
  CUdeviceptr buffer;
  CU_CHECK(cuMemAlloc(&buffer, 1 << 20));
  CU_CHECK(cuMemsetD8(buffer, 0, 1 << 20));
  for (int i = 0; i < 3; ++i) CU_CHECK(cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, cu_stream, nullptr, nullptr));
  CU_CHECK(cuStreamSynchronize(cu_stream));
  int host = -1;
  CU_CHECK(cuMemcpyDtoH(&host, buffer, sizeof(host)));

  // (b) dlopen + dlsym
  void* libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (libcuda == nullptr) return std::fprintf(stderr, "libcuda.so.1 not loaded\n"), 1;
  auto launch = reinterpret_cast<decltype(&cuLaunchKernel)>(dlsym(libcuda, "cuLaunchKernel"));
  auto ctx_sync = reinterpret_cast<decltype(&cuCtxSynchronize)>(dlsym(libcuda, "cuCtxSynchronize"));
  if (launch == nullptr || ctx_sync == nullptr) return std::fprintf(stderr, "dlsym failed\n"), 1;
  for (int i = 0; i < 4; ++i) CU_CHECK(launch(kernel, 1, 1, 1, 1, 1, 1, 0, cu_stream, nullptr, nullptr));
  CU_CHECK(ctx_sync());

  // (c) cuGetProcAddress_v2: virtual memory as expandable segments use it
  auto granularity = proc<decltype(&cuMemGetAllocationGranularity)>("cuMemGetAllocationGranularity");
  auto reserve = proc<decltype(&cuMemAddressReserve)>("cuMemAddressReserve");
  auto create = proc<decltype(&cuMemCreate)>("cuMemCreate");
  auto map = proc<decltype(&cuMemMap)>("cuMemMap");
  auto set_access = proc<decltype(&cuMemSetAccess)>("cuMemSetAccess");
  auto unmap = proc<decltype(&cuMemUnmap)>("cuMemUnmap");
  auto release = proc<decltype(&cuMemRelease)>("cuMemRelease");
  auto address_free = proc<decltype(&cuMemAddressFree)>("cuMemAddressFree");
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t size = 0;
  CU_CHECK(granularity(&size, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CUdeviceptr range;
  CU_CHECK(reserve(&range, size, 0, 0, 0));
  CUmemGenericAllocationHandle physical;
  CU_CHECK(create(&physical, size, &prop, 0));
  CU_CHECK(map(range, size, 0, physical, 0));
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(set_access(range, size, &access, 1));
  CU_CHECK(unmap(range, size));
  CU_CHECK(release(physical));
  CU_CHECK(address_free(range, size));
  // A captured graph, replayed through the driver.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  tour_noop<<<1, 1, 0, stream>>>();
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  auto graph_launch = proc<decltype(&cuGraphLaunch)>("cuGraphLaunch");
  for (int i = 0; i < 2; ++i) CU_CHECK(graph_launch(reinterpret_cast<CUgraphExec>(exec), cu_stream));
  auto launch_ptsz = proc<decltype(&cuLaunchKernel)>("cuLaunchKernel", CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  CU_CHECK(launch_ptsz(kernel, 1, 1, 1, 1, 1, 1, 0, cu_stream, nullptr, nullptr));

  // (d) the runtime's entry-point queries
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  CHECK(cudaGetDriverEntryPointByVersion("cuLaunchKernelEx", &fn, 12000, cudaEnableDefault, &found));
  auto launch_ex = reinterpret_cast<decltype(&cuLaunchKernelEx)>(fn);
  CUlaunchConfig config = {};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = config.blockDimY = config.blockDimZ = 1;
  config.hStream = cu_stream;
  for (int i = 0; i < 2; ++i) CU_CHECK(launch_ex(&config, kernel, nullptr, nullptr));
  CHECK(cudaGetDriverEntryPoint("cuMemAllocAsync", &fn, cudaEnableDefault, &found));
  auto alloc_async = reinterpret_cast<decltype(&cuMemAllocAsync)>(fn);
  CHECK(cudaGetDriverEntryPointByVersion("cuMemFreeAsync", &fn, 12000, cudaEnableDefault, &found));
  auto free_async = reinterpret_cast<decltype(&cuMemFreeAsync)>(fn);
  CHECK(cudaGetDriverEntryPointByVersion("cuStreamSynchronize", &fn, 12000, cudaEnableDefault, &found));
  auto stream_sync = reinterpret_cast<decltype(&cuStreamSynchronize)>(fn);
  CUdeviceptr pooled;
  CU_CHECK(alloc_async(&pooled, 4096, cu_stream));
  CU_CHECK(free_async(pooled, cu_stream));
  CU_CHECK(stream_sync(cu_stream));
  CU_CHECK(ctx_sync());

  CU_CHECK(cuMemFree(buffer));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
  std::printf("driver_tour: done (read back %d)\n", host);
  return 0;
}
