// The entry points nvcc-generated host code calls: fat binary, kernel and
// variable registration at start-up, and the <<<>>> launch configuration
// stack. Declared in nvcc_abi.h, so the definitions must match.
#include <cuda_runtime_api.h>

#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "fake_kernels.h"
#include "nvcc_abi.h"

#define FAKE_API extern "C" __attribute__((visibility("default")))

namespace fakecuda {
namespace {

struct Kernel {
  std::string name;  // mangled device name
  bool spin;         // a syncscope_spin kernel: first argument is its duration in ns
};

struct Variable {
  char* host_shadow;
  size_t size;
};

// Never destroyed: launches may still run while the process exits.
std::mutex* g_mutex = new std::mutex();
auto* g_kernels = new std::map<const void*, Kernel*>();     // host stub or handle -> kernel
auto* g_variables = new std::map<const void*, Variable>();  // host shadow -> variable

struct CallConfiguration {
  dim3 grid, block;
  size_t shared;
  void* stream;
};
thread_local std::vector<CallConfiguration> t_configurations;

Kernel* find_kernel(const void* kernel_or_stub) {
  auto it = g_kernels->find(kernel_or_stub);
  return it == g_kernels->end() ? nullptr : it->second;
}

}  // namespace

bool known_kernel(const void* kernel_or_stub) {
  std::lock_guard<std::mutex> lock(*g_mutex);
  return find_kernel(kernel_or_stub) != nullptr;
}

uint64_t kernel_duration_ns(const void* kernel_or_stub, void** args) {
  bool spin;
  {
    std::lock_guard<std::mutex> lock(*g_mutex);
    Kernel* k = find_kernel(kernel_or_stub);
    spin = k != nullptr && k->spin;
  }
  if (spin && args != nullptr && args[0] != nullptr) {
    long long ns;
    std::memcpy(&ns, args[0], sizeof(ns));
    return ns > 0 ? static_cast<uint64_t>(ns) : 0;
  }
  return 5000;
}

const char* kernel_name(const void* kernel_or_stub) {
  std::lock_guard<std::mutex> lock(*g_mutex);
  Kernel* k = find_kernel(kernel_or_stub);
  return k == nullptr ? nullptr : k->name.c_str();  // kernels are never freed
}

void* symbol_address(const void* symbol, size_t offset, size_t count) {
  std::lock_guard<std::mutex> lock(*g_mutex);
  auto it = g_variables->find(symbol);
  if (it == g_variables->end() || offset > it->second.size || count > it->second.size - offset) return nullptr;
  return it->second.host_shadow + offset;
}

void reset_registration_after_fork() {
  g_mutex = new std::mutex();
  t_configurations.clear();
}

}  // namespace fakecuda

using namespace fakecuda;

// One handle per registered fat binary; the fake has no device code to load.
FAKE_API void** __cudaRegisterFatBinary(void* fat_cubin) {
  auto** handle = new void*[1];
  handle[0] = fat_cubin;
  return handle;
}

FAKE_API void __cudaRegisterFatBinaryEnd(void**) {}
// Called from atexit handlers: nothing is freed (launches may still run).
FAKE_API void __cudaUnregisterFatBinary(void**) {}
FAKE_API char __cudaInitModule(void**) { return 1; }

FAKE_API void __cudaRegisterFunction(void**, const char* host_fun, char*, const char* device_name, int, uint3*, uint3*,
                                     dim3*, dim3*, int*) {
  std::string name = device_name ? device_name : "";
  auto* k = new Kernel{name, name.find("syncscope_spin") != std::string::npos};
  std::lock_guard<std::mutex> lock(*g_mutex);
  (*g_kernels)[host_fun] = k;
  (*g_kernels)[k] = k;  // the cudaKernel_t handle is the Kernel itself
}

// __device__ variables live in their host shadow: symbol copies go there.
FAKE_API void __cudaRegisterVar(void**, char* host_var, char*, const char*, int, size_t size, int, int) {
  std::lock_guard<std::mutex> lock(*g_mutex);
  (*g_variables)[host_var] = Variable{host_var, size};
}

FAKE_API void __cudaRegisterManagedVar(void**, void** host_var_ptr_address, char*, const char*, int, size_t size, int,
                                       int) {
  // A __managed__ variable: the host reaches it through *host_var_ptr_address.
  void* storage = new char[size ? size : 1]();
  *host_var_ptr_address = storage;
  std::lock_guard<std::mutex> lock(*g_mutex);
  (*g_variables)[host_var_ptr_address] = Variable{static_cast<char*>(storage), size};
}

FAKE_API cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_fun) {
  if (kernel == nullptr) return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(*g_mutex);
  Kernel* k = find_kernel(host_fun);
  if (k == nullptr) return cudaErrorInvalidDeviceFunction;
  *kernel = reinterpret_cast<cudaKernel_t>(k);
  return cudaSuccess;
}

FAKE_API unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st* stream) {
  t_configurations.push_back({grid, block, shared, stream});
  return 0;
}

FAKE_API cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  if (t_configurations.empty()) return cudaErrorMissingConfiguration;
  CallConfiguration c = t_configurations.back();
  t_configurations.pop_back();
  if (grid) *grid = c.grid;
  if (block) *block = c.block;
  if (shared) *shared = c.shared;
  if (stream) *static_cast<void**>(stream) = c.stream;
  return cudaSuccess;
}
