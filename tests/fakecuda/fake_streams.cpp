#include "fake_streams.h"

#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <thread>

namespace fakecuda {
namespace {

// Sleeps shorter than this are spun; longer ones sleep until this much before
// their deadline, then spin.
constexpr uint64_t kSpinNs = 100000;
// Waking a blocked thread costs 10-70 µs on the virtual machines CI runs on,
// more than a launch or a short kernel. So an idle worker polls its queue for
// a while before blocking, and a thread waiting for a stream polls for a
// while before blocking: like a real driver's spin-then-yield wait.
constexpr uint64_t kIdlePollNs = 50000;
constexpr uint64_t kWaitPollNs = 100000;

// Streams are never freed: a worker or an event may still reference one
// (even at exit), and a destroyed handle is never reused for a new stream.
std::mutex* g_registry_mutex = new std::mutex();
std::vector<Stream*>* g_streams = new std::vector<Stream*>();
Stream* g_legacy = nullptr;
std::atomic<uint64_t> g_generation{1};  // bumped in a forked child

struct PerThreadStream {
  uint64_t generation = 0;
  Stream* stream = nullptr;
};
thread_local PerThreadStream t_per_thread;

Stream* legacy() {
  std::lock_guard<std::mutex> lock(*g_registry_mutex);
  if (g_legacy == nullptr) {
    g_legacy = new Stream(true, true);
    g_streams->push_back(g_legacy);
  }
  return g_legacy;
}

Stream* per_thread() {
  uint64_t generation = g_generation.load();
  if (t_per_thread.generation != generation) {
    // Blocking: the per-thread default stream synchronises with the legacy one.
    t_per_thread.stream = static_cast<Stream*>(create_stream(true));
    t_per_thread.generation = generation;
  }
  return t_per_thread.stream;
}

// The streams a new operation on `stream` must wait for, by the legacy
// default stream's rules; only those with unfinished work.
std::vector<std::pair<Stream*, uint64_t>> implicit_waits(Stream* stream) {
  std::vector<std::pair<Stream*, uint64_t>> waits;
  if (stream->legacy) {
    for (Stream* other : all_streams()) {
      if (other != stream && other->blocking && !other->idle()) waits.emplace_back(other, other->last_ticket());
    }
  } else if (stream->blocking) {
    Stream* l = legacy();
    if (!l->idle()) waits.emplace_back(l, l->last_ticket());
  }
  return waits;
}

}  // namespace

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void sleep_until_ns(uint64_t deadline) {
  thread_local bool slack_set = [] {
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // the default 50 µs slack makes every sleep late
    return true;
  }();
  (void)slack_set;
  while (true) {
    uint64_t now = now_ns();
    if (now >= deadline) return;
    if (deadline - now > kSpinNs) {
      uint64_t wake = deadline - kSpinNs;
      timespec ts{static_cast<time_t>(wake / 1000000000ull), static_cast<long>(wake % 1000000000ull)};
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
    } else {
      while (now_ns() < deadline) __builtin_ia32_pause();
      return;
    }
  }
}

// ---------------------------------------------------------------- Stream

Stream::Stream(bool is_blocking, bool is_legacy) : blocking(is_blocking), legacy(is_legacy) {
  // Detached: a process may exit with work queued, as with a real GPU. The
  // worker only touches this object, which is never freed.
  std::thread([this] { run(); }).detach();
}

void Stream::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    if (queue_.empty() && !destroyed_.load()) {
      lock.unlock();
      uint64_t give_up = now_ns() + kIdlePollNs;
      while (queued_.load(std::memory_order_acquire) == 0 && !destroyed_.load() && now_ns() < give_up)
        sched_yield();  // polite: other threads on this core run first
      lock.lock();
      worker_asleep_ = true;
      changed_.wait(lock, [this] { return !queue_.empty() || destroyed_.load(); });
      worker_asleep_ = false;
    }
    if (queue_.empty()) return;  // destroyed and drained: the worker ends
    auto [submitted, work] = std::move(queue_.front());
    queue_.pop_front();
    queued_.fetch_sub(1);
    uint64_t start = std::max(submitted, end_ns_);
    lock.unlock();
    for (const auto& [other, ticket] : work.waits) {
      other->wait_for(ticket);
      start = std::max(start, other->end_of(ticket));
    }
    // The simulated GPU ran it from `start`; a worker that got here late (a
    // slow thread start, a late wake-up) only catches up: it does not delay
    // the simulated timeline.
    // The effect (bytes copied, host function run) happens at the end: the
    // worker sleeps first, so a worker woken on the submitting thread's CPU
    // gives that CPU back at once instead of copying on it.
    uint64_t end = start + work.duration_ns;
    sleep_until_ns(end);
    if (work.action) work.action(start);
    lock.lock();
    end_ns_ = end;
    ends_[(completed_ + 1) % kEndRing] = end;
    completed_.fetch_add(1, std::memory_order_release);
    if (blocked_waiters_ > 0) {
      lock.unlock();
      changed_.notify_all();
      lock.lock();
    }
  }
}

uint64_t Stream::enqueue(Work work) {
  uint64_t ticket;
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.emplace_back(now_ns(), std::move(work));
    queued_.fetch_add(1, std::memory_order_release);
    ticket = ++enqueued_;
    wake = worker_asleep_.load();
  }
  if (wake) changed_.notify_all();
  return ticket;
}

void Stream::wait_for(uint64_t ticket) {
  uint64_t give_up = now_ns() + kWaitPollNs;
  while (completed_.load(std::memory_order_acquire) < ticket) {
    if (now_ns() > give_up) {
      std::unique_lock<std::mutex> lock(mutex_);
      ++blocked_waiters_;
      changed_.wait(lock, [&] { return completed_.load() >= ticket; });
      --blocked_waiters_;
      return;
    }
    sched_yield();
  }
}

bool Stream::reached(uint64_t ticket) {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ >= ticket;
}

uint64_t Stream::last_ticket() {
  std::lock_guard<std::mutex> lock(mutex_);
  return enqueued_;
}

bool Stream::idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ == enqueued_;
}

uint64_t Stream::end_of(uint64_t ticket) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ticket == 0 || ticket > completed_ || completed_ - ticket >= kEndRing) return 0;
  return ends_[ticket % kEndRing];
}

void Stream::mark_destroyed() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    destroyed_ = true;
  }
  changed_.notify_all();
}

// ---------------------------------------------------------------- registry

Stream* stream_from_handle(void* handle, bool per_thread_default) {
  auto value = reinterpret_cast<uintptr_t>(handle);
  if (value == 0) return per_thread_default ? per_thread() : legacy();
  if (value == 1) return legacy();      // cudaStreamLegacy
  if (value == 2) return per_thread();  // cudaStreamPerThread
  std::lock_guard<std::mutex> lock(*g_registry_mutex);
  auto* s = static_cast<Stream*>(handle);
  auto it = std::find(g_streams->begin(), g_streams->end(), s);
  return it != g_streams->end() && !s->destroyed() ? s : nullptr;
}

void* create_stream(bool blocking) {
  legacy();
  auto* s = new Stream(blocking, false);
  std::lock_guard<std::mutex> lock(*g_registry_mutex);
  // Forget destroyed streams whose work is done (their workers have ended).
  g_streams->erase(
      std::remove_if(g_streams->begin(), g_streams->end(), [](Stream* d) { return d->destroyed() && d->idle(); }),
      g_streams->end());
  g_streams->push_back(s);
  return s;
}

bool destroy_stream(void* handle) {
  std::lock_guard<std::mutex> lock(*g_registry_mutex);
  auto* s = static_cast<Stream*>(handle);
  auto it = std::find(g_streams->begin(), g_streams->end(), s);
  if (it == g_streams->end() || s->legacy || s->destroyed()) return false;
  // Its queued work still completes (and device syncs wait for it); the
  // worker ends once the queue is empty.
  s->mark_destroyed();
  return true;
}

std::vector<Stream*> all_streams() {
  legacy();
  std::lock_guard<std::mutex> lock(*g_registry_mutex);
  return *g_streams;
}

void synchronize_device() {
  for (Stream* s : all_streams()) s->wait_for(s->last_ticket());
}

uint64_t submit(Stream* stream, Work work) {
  if (Graph* graph = stream->capture.load()) {
    std::lock_guard<std::mutex> lock(graph->mutex);
    graph->work.push_back(std::move(work));
    return 0;
  }
  // Implicit legacy-stream ordering, decided at submission time so waits only
  // ever point at earlier work (no cycles).
  auto waits = implicit_waits(stream);
  work.waits.insert(work.waits.end(), waits.begin(), waits.end());
  return stream->enqueue(std::move(work));
}

void wait_stream_point(Stream* stream) {
  if (stream->capture.load() != nullptr) return;
  if (stream->idle() && implicit_waits(stream).empty()) return;
  stream->wait_for(submit(stream, Work{}));
}

void reset_streams_after_fork() {
  // The child has none of the parent's worker threads: forget every stream
  // (leaked), and let each thread make a fresh per-thread stream.
  g_registry_mutex = new std::mutex();
  g_streams = new std::vector<Stream*>();
  g_legacy = nullptr;
  g_generation.fetch_add(1);
}

}  // namespace fakecuda
