// Simulated streams for the fake CUDA runtime: each stream is a FIFO of
// work executed in order by its own worker thread. Completion is counted in
// tickets, so events ("stream S reached ticket T") and waits are simple
// comparisons and never form cycles.
//
// Time is simulated on a virtual GPU timeline: an operation starts when its
// stream's previous operation ended (or when it was submitted, or when what it
// waits for ended, whichever is latest) and ends `duration_ns` later; the
// worker then sleeps until that moment. A late wake-up of one operation
// therefore does not delay the ones queued behind it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace fakecuda {

class Stream;

// One operation: what it waits for, how long it takes on the simulated GPU,
// and what it does (copy bytes, run a host function, ...), which happens when
// its time is up. The action gets the operation's simulated start time.
struct Work {
  uint64_t duration_ns = 0;
  std::function<void(uint64_t start_ns)> action;
  std::vector<std::pair<Stream*, uint64_t>> waits;  // (stream, ticket) that must complete first
};

// A captured graph: operations in capture order.
struct Graph {
  std::mutex mutex;
  std::vector<Work> work;
};

class Stream {
 public:
  Stream(bool blocking, bool legacy);
  // Appends work; returns its ticket (it has completed when completed() >= ticket).
  uint64_t enqueue(Work work);
  void wait_for(uint64_t ticket);
  bool reached(uint64_t ticket);
  uint64_t last_ticket();
  bool idle();
  // Simulated end time of a completed ticket (0 when it is long past).
  uint64_t end_of(uint64_t ticket);
  // cudaStreamDestroy: queued work still runs, then the worker ends.
  void mark_destroyed();
  bool destroyed() { return destroyed_.load(); }

  const bool blocking;  // implicitly synchronises with the legacy stream
  const bool legacy;
  std::atomic<Graph*> capture{nullptr};  // non-null while captured into a graph

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<uint64_t, Work>> queue_;  // (submit time, work)
  uint64_t enqueued_ = 0;
  // Written under mutex_; atomic so waiters and the idle worker can poll.
  std::atomic<uint64_t> completed_{0};
  std::atomic<uint64_t> queued_{0};         // queue_.size()
  std::atomic<bool> worker_asleep_{false};  // blocked on changed_: enqueue must notify
  int blocked_waiters_ = 0;                 // blocked on changed_: completion must notify
  uint64_t end_ns_ = 0;                     // simulated end of the last completed operation
  std::atomic<bool> destroyed_{false};
  static constexpr uint64_t kEndRing = 1024;
  uint64_t ends_[kEndRing] = {};  // simulated end times by ticket % kEndRing
};

// A recorded point in a stream, with the simulated time it was reached.
struct EventRecord {
  Stream* stream = nullptr;
  uint64_t ticket = 0;
  std::shared_ptr<std::atomic<uint64_t>> time_ns;  // set when reached
};

// The stream a cudaStream_t names; nullptr for an unknown handle. 0 is the
// legacy default stream, or this thread's per-thread default stream for the
// _ptsz/_ptds entry points (per_thread_default); cudaStreamLegacy (1) is
// always the legacy stream, cudaStreamPerThread (2) always the per-thread one.
Stream* stream_from_handle(void* handle, bool per_thread_default = false);
void* create_stream(bool blocking);
bool destroy_stream(void* handle);
// Every live stream, for device-wide synchronisation.
std::vector<Stream*> all_streams();
void synchronize_device();

// Submits work to a stream with the legacy default stream's implicit
// ordering: work on the legacy stream waits for all earlier work on blocking
// streams, and work on a blocking stream waits for earlier legacy work. A
// stream being captured appends to its graph instead (returns 0).
uint64_t submit(Stream* stream, Work work);
// Blocks the caller until everything submitted to the stream so far (and, by
// the implicit ordering, what it depends on) has completed.
void wait_stream_point(Stream* stream);

uint64_t now_ns();
// Sleeps precisely (coarse sleep, then a short spin): the machines CI runs on
// often wake sleepers 50-100 µs late.
void sleep_until_ns(uint64_t deadline_ns);
inline void sleep_ns(uint64_t ns) { sleep_until_ns(now_ns() + ns); }

void reset_streams_after_fork();

}  // namespace fakecuda
