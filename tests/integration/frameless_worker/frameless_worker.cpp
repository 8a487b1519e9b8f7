// A "backward pass" on a C++ thread that Python does not know, as autograd's
// worker threads are: it syncs `syncs` times while the caller waits for it.
// Called through ctypes.CDLL, the caller waits with the GIL released.
#include <cuda_runtime_api.h>

#include <thread>

extern "C" __attribute__((visibility("default"))) int syncscope_test_backward(int syncs) {
  std::thread worker([syncs] {
    for (int i = 0; i < syncs; ++i) cudaStreamSynchronize(nullptr);
  });
  worker.join();
  return 0;
}

// Many calls inside one GIL release on the calling thread, as
// torch.cuda.empty_cache() with expandable segments makes (an unmap, a
// release and a sync per segment): every one of them owes its Python line.
extern "C" __attribute__((visibility("default"))) int syncscope_test_many_syncs(int syncs) {
  for (int i = 0; i < syncs; ++i) cudaStreamSynchronize(nullptr);
  return 0;
}
