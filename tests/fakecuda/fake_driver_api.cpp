// A fake libcuda.so.1: the driver entry points syncscope intercepts, on top
// of the fake runtime's simulated memory and streams (it calls the fake
// libcudart's exported functions). cuGetProcAddress(_v2) answers with this
// library's own functions, by name, version and flags, as the real driver
// does. Test scaffolding only (README.md).
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstring>

#define FAKE_DRIVER_API extern "C" __attribute__((visibility("default")))

// The fake runtime's per-thread entry points (declared by cuda_runtime_api.h
// only when compiling for the per-thread default stream).
extern "C" cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);
extern "C" cudaError_t cudaLaunchKernel_ptsz(const void* f, dim3 grid, dim3 block, void** args, size_t shared,
                                             cudaStream_t stream);

namespace {

CUresult from(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return CUDA_SUCCESS;
    case cudaErrorInvalidValue:
      return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorMemoryAllocation:
      return CUDA_ERROR_OUT_OF_MEMORY;
    case cudaErrorInvalidResourceHandle:
      return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorInvalidDevicePointer:
      return CUDA_ERROR_INVALID_VALUE;
    default:
      return CUDA_ERROR_UNKNOWN;
  }
}

void* p(CUdeviceptr d) { return reinterpret_cast<void*>(static_cast<uintptr_t>(d)); }
cudaStream_t s(CUstream stream) { return reinterpret_cast<cudaStream_t>(stream); }
std::atomic<bool> g_initialised{false};
std::atomic<unsigned long long> g_next_handle{1};

}  // namespace

FAKE_DRIVER_API CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  g_initialised = true;
  return CUDA_SUCCESS;
}
FAKE_DRIVER_API CUresult cuDriverGetVersion(int* version) {
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

// ---- synchronization
FAKE_DRIVER_API CUresult cuCtxSynchronize() { return from(cudaDeviceSynchronize()); }
FAKE_DRIVER_API CUresult cuStreamSynchronize(CUstream h) { return from(cudaStreamSynchronize(s(h))); }
FAKE_DRIVER_API CUresult cuStreamSynchronize_ptsz(CUstream h) { return from(cudaStreamSynchronize_ptsz(s(h))); }
FAKE_DRIVER_API CUresult cuEventSynchronize(CUevent e) {
  return from(cudaEventSynchronize(reinterpret_cast<cudaEvent_t>(e)));
}
FAKE_DRIVER_API CUresult cuStreamWaitEvent(CUstream h, CUevent e, unsigned int flags) {
  return from(cudaStreamWaitEvent(s(h), reinterpret_cast<cudaEvent_t>(e), flags));
}

// ---- launches: a CUfunction is the kernel's host stub (cudaGetFuncBySymbol)
FAKE_DRIVER_API CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                                        CUstream h, void** params, void** extra) {
  if (f == nullptr || extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
  return from(
      cudaLaunchKernel(reinterpret_cast<const void*>(f), dim3(gx, gy, gz), dim3(bx, by, bz), params, shared, s(h)));
}
FAKE_DRIVER_API CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                             unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                                             CUstream h, void** params, void** extra) {
  if (f == nullptr || extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
  return from(cudaLaunchKernel_ptsz(reinterpret_cast<const void*>(f), dim3(gx, gy, gz), dim3(bx, by, bz), params,
                                    shared, s(h)));
}
FAKE_DRIVER_API CUresult cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
  if (c == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return cuLaunchKernel(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                        c->sharedMemBytes, c->hStream, params, extra);
}
FAKE_DRIVER_API CUresult cuGraphLaunch(CUgraphExec g, CUstream h) {
  return from(cudaGraphLaunch(reinterpret_cast<cudaGraphExec_t>(g), s(h)));
}

// ---- copies and memsets
FAKE_DRIVER_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) {
  return from(cudaMemcpy(p(dst), src, n, cudaMemcpyHostToDevice));
}
FAKE_DRIVER_API CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) {
  return from(cudaMemcpy(dst, p(src), n, cudaMemcpyDeviceToHost));
}
FAKE_DRIVER_API CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, CUstream h) {
  return from(cudaMemcpyAsync(dst, p(src), n, cudaMemcpyDeviceToHost, s(h)));
}
FAKE_DRIVER_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h) {
  return from(cudaMemcpyAsync(p(dst), p(src), n, cudaMemcpyDefault, s(h)));
}
FAKE_DRIVER_API CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t n) {
  return from(cudaMemset(p(dst), value, n));
}
FAKE_DRIVER_API CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t n, CUstream h) {
  if (value != 0) return CUDA_ERROR_NOT_SUPPORTED;  // the simulation only zeroes
  return from(cudaMemsetAsync(p(dst), 0, n * 4, s(h)));
}

// ---- memory
FAKE_DRIVER_API CUresult cuMemAlloc_v2(CUdeviceptr* d, size_t n) {
  if (d == nullptr) return CUDA_ERROR_INVALID_VALUE;
  void* ptr = nullptr;
  CUresult r = from(cudaMalloc(&ptr, n));
  *d = reinterpret_cast<CUdeviceptr>(ptr);
  return r;
}
FAKE_DRIVER_API CUresult cuMemFree_v2(CUdeviceptr d) { return from(cudaFree(p(d))); }
FAKE_DRIVER_API CUresult cuMemAllocAsync(CUdeviceptr* d, size_t n, CUstream h) {
  if (d == nullptr) return CUDA_ERROR_INVALID_VALUE;
  void* ptr = nullptr;
  CUresult r = from(cudaMallocAsync(&ptr, n, s(h)));
  *d = reinterpret_cast<CUdeviceptr>(ptr);
  return r;
}
FAKE_DRIVER_API CUresult cuMemFreeAsync(CUdeviceptr d, CUstream h) { return from(cudaFreeAsync(p(d), s(h))); }
FAKE_DRIVER_API CUresult cuMemAllocHost_v2(void** pp, size_t n) { return from(cudaMallocHost(pp, n)); }
FAKE_DRIVER_API CUresult cuMemFreeHost(void* ptr) { return from(cudaFreeHost(ptr)); }

// ---- virtual memory: an address range is simulated device memory; the
// physical handles are counters (the simulation has no pages to map).
FAKE_DRIVER_API CUresult cuMemGetAllocationGranularity(size_t* g, const CUmemAllocationProp* prop,
                                                       CUmemAllocationGranularity_flags) {
  if (g == nullptr || prop == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *g = 2 << 20;
  return CUDA_SUCCESS;
}
FAKE_DRIVER_API CUresult cuMemAddressReserve(CUdeviceptr* d, size_t n, size_t, CUdeviceptr, unsigned long long) {
  return cuMemAlloc_v2(d, n);
}
FAKE_DRIVER_API CUresult cuMemAddressFree(CUdeviceptr d, size_t) { return cuMemFree_v2(d); }
FAKE_DRIVER_API CUresult cuMemCreate(CUmemGenericAllocationHandle* h, size_t n, const CUmemAllocationProp* prop,
                                     unsigned long long flags) {
  if (h == nullptr || prop == nullptr || n == 0 || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  *h = g_next_handle++;
  return CUDA_SUCCESS;
}
FAKE_DRIVER_API CUresult cuMemRelease(CUmemGenericAllocationHandle h) {
  return h != 0 && h < g_next_handle ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
FAKE_DRIVER_API CUresult cuMemMap(CUdeviceptr d, size_t n, size_t, CUmemGenericAllocationHandle h, unsigned long long) {
  if (d == 0 || n == 0) return CUDA_ERROR_INVALID_VALUE;
  return cuMemRelease(h);  // the handle must exist
}
FAKE_DRIVER_API CUresult cuMemUnmap(CUdeviceptr d, size_t n) {
  return d != 0 && n != 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
FAKE_DRIVER_API CUresult cuMemSetAccess(CUdeviceptr d, size_t n, const CUmemAccessDesc* desc, size_t count) {
  return d != 0 && n != 0 && desc != nullptr && count > 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// ---- entry points, by name as the real driver answers them: the symbol
// without its ABI suffix; the per-thread variant when asked for.
#undef cuGetProcAddress
namespace {

struct Entry {
  const char* name;  // ABI name
  void* fn;
};

#define FAKE_ENTRY(f) \
  { #f, reinterpret_cast < void*>(&f) }
const Entry kEntries[] = {
    FAKE_ENTRY(cuInit),
    FAKE_ENTRY(cuDriverGetVersion),
    FAKE_ENTRY(cuCtxSynchronize),
    FAKE_ENTRY(cuStreamSynchronize),
    FAKE_ENTRY(cuStreamSynchronize_ptsz),
    FAKE_ENTRY(cuEventSynchronize),
    FAKE_ENTRY(cuStreamWaitEvent),
    FAKE_ENTRY(cuLaunchKernel),
    FAKE_ENTRY(cuLaunchKernel_ptsz),
    FAKE_ENTRY(cuLaunchKernelEx),
    FAKE_ENTRY(cuGraphLaunch),
    FAKE_ENTRY(cuMemcpyHtoD_v2),
    FAKE_ENTRY(cuMemcpyDtoH_v2),
    FAKE_ENTRY(cuMemcpyDtoHAsync_v2),
    FAKE_ENTRY(cuMemcpyAsync),
    FAKE_ENTRY(cuMemsetD8_v2),
    FAKE_ENTRY(cuMemsetD32Async),
    FAKE_ENTRY(cuMemAlloc_v2),
    FAKE_ENTRY(cuMemFree_v2),
    FAKE_ENTRY(cuMemAllocAsync),
    FAKE_ENTRY(cuMemFreeAsync),
    FAKE_ENTRY(cuMemAllocHost_v2),
    FAKE_ENTRY(cuMemFreeHost),
    FAKE_ENTRY(cuMemGetAllocationGranularity),
    FAKE_ENTRY(cuMemAddressReserve),
    FAKE_ENTRY(cuMemAddressFree),
    FAKE_ENTRY(cuMemCreate),
    FAKE_ENTRY(cuMemRelease),
    FAKE_ENTRY(cuMemMap),
    FAKE_ENTRY(cuMemUnmap),
    FAKE_ENTRY(cuMemSetAccess),
};
#undef FAKE_ENTRY

void* find(const char* name) {
  for (const Entry& e : kEntries) {
    if (std::strcmp(e.name, name) == 0) return e.fn;
  }
  return nullptr;
}

}  // namespace

extern "C" CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                        CUdriverProcAddressQueryResult* status);

FAKE_DRIVER_API CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                             CUdriverProcAddressQueryResult* status) {
  if (symbol == nullptr || pfn == nullptr || std::strlen(symbol) > 64) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  if (std::strcmp(symbol, "cuGetProcAddress") == 0) {
    *pfn = reinterpret_cast<void*>(&cuGetProcAddress_v2);
  } else {
    const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    const char* suffixes_pt[] = {"_v2_ptds", "_v2_ptsz", "_ptds", "_ptsz", "_v2", ""};
    const char* suffixes[] = {"_v2", ""};
    const char* const* list = per_thread ? suffixes_pt : suffixes;
    int n = per_thread ? 6 : 2;
    char name[96];
    for (int i = 0; i < n && *pfn == nullptr; ++i) {
      std::strcpy(name, symbol);
      std::strcat(name, list[i]);
      *pfn = find(name);
    }
  }
  if (status != nullptr) *status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  (void)version;
  return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
FAKE_DRIVER_API CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, version, flags, nullptr);
}
