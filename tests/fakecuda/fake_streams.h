// Simulated streams for the fake CUDA runtime: each stream is a FIFO of
// work executed in order by its own worker thread. Completion is counted in
// tickets, so events ("stream S reached ticket T") and waits are simple
// comparisons and never form cycles.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace fakecuda {

struct Graph;

class Stream {
 public:
  explicit Stream(bool blocking, bool legacy);
  // Appends work; returns its ticket (completion of it == completed() >= ticket).
  uint64_t enqueue(std::function<void()> work);
  // Waits until everything enqueued so far has run.
  void drain();
  void wait_for(uint64_t ticket);
  bool reached(uint64_t ticket);
  uint64_t last_ticket();
  bool idle();

  const bool blocking;  // implicitly synchronises with the legacy stream
  const bool legacy;
  Graph* capture = nullptr;  // non-null while captured into a graph

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> queue_;
  uint64_t enqueued_ = 0;
  uint64_t completed_ = 0;
};

// A recorded point in a stream.
struct Event {
  Stream* stream = nullptr;
  uint64_t ticket = 0;
};

struct Graph {
  std::vector<std::function<void()>> work;  // in capture order
};

// The stream a cudaStream_t names (0, cudaStreamLegacy and cudaStreamPerThread
// all map to the legacy stream); nullptr for an unknown handle.
Stream* stream_from_handle(void* handle);
void* create_stream(bool blocking);
bool destroy_stream(void* handle);
// Every live stream, for device-wide synchronisation.
std::vector<Stream*> all_streams();

// Submits work to a stream with the legacy default stream's implicit
// ordering: work on the legacy stream waits for all earlier work on blocking
// streams, and work on a blocking stream waits for earlier legacy work. A
// stream being captured appends to its graph instead.
void submit(Stream* stream, std::function<void()> work);

void sleep_ns(uint64_t ns);
void reset_after_fork();

}  // namespace fakecuda
