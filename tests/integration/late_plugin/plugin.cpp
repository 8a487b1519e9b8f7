// Loaded by late_plugin_loop mid-run: one explicit device sync per call,
// through this library's own import of cudaDeviceSynchronize.
#include <cuda_runtime_api.h>

extern "C" __attribute__((visibility("default"), noinline)) int late_plugin_step() {
  return static_cast<int>(cudaDeviceSynchronize());
}
