#include "fake_streams.h"

#include <pthread.h>

#include <algorithm>
#include <thread>
#include <time.h>

namespace fakecuda {
namespace {

std::mutex g_registry_mutex;
// Streams are never freed: a worker may still reference one at exit, and a
// destroyed handle must not be reused for a new stream in tests.
std::vector<Stream*>* g_streams = new std::vector<Stream*>();
Stream* g_legacy = nullptr;

Stream* legacy() {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  if (g_legacy == nullptr) {
    g_legacy = new Stream(true, true);
    g_streams->push_back(g_legacy);
  }
  return g_legacy;
}

}  // namespace

void sleep_ns(uint64_t ns) {
  if (ns == 0) return;
  timespec ts{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

Stream::Stream(bool is_blocking, bool is_legacy) : blocking(is_blocking), legacy(is_legacy) {
  // Detached: a process may exit with work queued, as with a real GPU.
  std::thread([this] { run(); }).detach();
}

void Stream::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return !queue_.empty(); });
    std::function<void()> work = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    work();
    lock.lock();
    ++completed_;
    changed_.notify_all();
  }
}

uint64_t Stream::enqueue(std::function<void()> work) {
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.push_back(std::move(work));
  changed_.notify_all();
  return ++enqueued_;
}

void Stream::wait_for(uint64_t ticket) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return completed_ >= ticket; });
}

void Stream::drain() { wait_for(last_ticket()); }

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

Stream* stream_from_handle(void* handle) {
  auto value = reinterpret_cast<uintptr_t>(handle);
  if (value == 0 || value == 1 || value == 2) return legacy();
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  auto* s = static_cast<Stream*>(handle);
  return std::find(g_streams->begin(), g_streams->end(), s) != g_streams->end() ? s : nullptr;
}

void* create_stream(bool blocking) {
  legacy();
  auto* s = new Stream(blocking, false);
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  g_streams->push_back(s);
  return s;
}

bool destroy_stream(void* handle) {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  auto it = std::find(g_streams->begin(), g_streams->end(), static_cast<Stream*>(handle));
  if (it == g_streams->end() || (*it)->legacy) return false;
  g_streams->erase(it);  // leaked on purpose: its worker may still run
  return true;
}

std::vector<Stream*> all_streams() {
  legacy();
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  return *g_streams;
}

void submit(Stream* stream, std::function<void()> work) {
  if (stream->capture != nullptr) {
    stream->capture->work.push_back(std::move(work));
    return;
  }
  // Implicit legacy-stream ordering, decided at submission time so waits only
  // ever point at earlier work.
  std::vector<std::pair<Stream*, uint64_t>> waits;
  if (stream->legacy) {
    for (Stream* other : all_streams()) {
      if (other != stream && other->blocking) waits.emplace_back(other, other->last_ticket());
    }
  } else if (stream->blocking) {
    Stream* l = legacy();
    waits.emplace_back(l, l->last_ticket());
  }
  stream->enqueue([waits = std::move(waits), work = std::move(work)] {
    for (const auto& [other, ticket] : waits) other->wait_for(ticket);
    work();
  });
}

void reset_after_fork() {
  // The child has none of the parent's worker threads: forget every stream.
  new (&g_registry_mutex) std::mutex();
  g_streams = new std::vector<Stream*>();
  g_legacy = nullptr;
}

}  // namespace fakecuda
