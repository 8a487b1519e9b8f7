// A "backward pass" on a C++ thread that Python does not know, as autograd's
// worker threads are: it syncs `syncs` times while the caller waits for it;
// or, on one thread kept across calls, queues a pass's memsets.
// Called through ctypes.CDLL, the caller waits with the GIL released.
#include <cuda_runtime_api.h>

#include <condition_variable>
#include <mutex>
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

namespace {

// One thread that lives across calls, as autograd's device thread does: it
// makes no call but its pass's queued work, so the recorder folds its
// launches into runs that would span passes but for the backward marker.
class PassThread {
 public:
  // Detached, never joined: it outlives main().
  PassThread() {
    std::thread([this] { serve(); }).detach();
  }
  void run(int memsets, void* device, cudaStream_t stream) {
    std::unique_lock<std::mutex> lock(mutex_);
    memsets_ = memsets, device_ = device, stream_ = stream, pending_ = true;
    wake_.notify_all();
    wake_.wait(lock, [this] { return !pending_; });
  }

 private:
  void serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return pending_; });
      // Sizes vary inside a pass, as a model's kernels do, so the recorder's
      // content cuts fall somewhere in it.
      for (int i = 0; i < memsets_; ++i) cudaMemsetAsync(device_, 0, 16 * (1 + i % 5), stream_);
      pending_ = false;
      wake_.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  bool pending_ = false;
  int memsets_ = 0;
  void* device_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

// A backward pass of `memsets` asynchronous memsets on the persistent pass
// thread, while the caller (through ctypes.CDLL: the GIL released) waits.
extern "C" __attribute__((visibility("default"))) int syncscope_test_backward_pass(int memsets, void* device,
                                                                                   void* stream) {
  static PassThread* thread = new PassThread;  // leaked: a detached thread waits on it at exit
  thread->run(memsets, device, static_cast<cudaStream_t>(stream));
  return 0;
}
