#include "preload/recording/collector.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "preload/core/clock.h"
#include "preload/core/config.h"
#include "preload/gpu_timeline/cupti_timeline.h"
#include "preload/gpu_timeline/nvtx_ranges.h"
#include "preload/core/in_hook.h"
#include "preload/core/log.h"
#include "preload/recording/module_tracker.h"
#include "preload/recording/process_info.h"
#include "preload/python/python_frames.h"
#include "preload/recording/recorder.h"
#include "preload/recording/stack_table.h"
#include "preload/recording/launch_aggregator.h"
#include "preload/recording/status_report.h"
#include "preload/recording/thread_state.h"
#include "trace/format.h"
#include "trace/process_info_keys.h"
#include "trace/recording_status.h"
#include "trace/writer.h"

namespace syncscope::preload {
namespace {

// All collector state lives in one object so a forked child can rebuild it
// from scratch (the parent's mutex and condition variable may have been held
// by the collector thread, which does not exist in the child).
struct Collector {
  std::mutex mutex;  // held while draining; fork waits for a drain to finish
  std::condition_variable wake;
  bool stop = false;
  pthread_t thread{};
  bool thread_running = false;
  TraceWriter writer;
  TickConverter clock;
  ModuleTracker modules;
  uint32_t stack_cursor = 0;
  uint32_t code_cursor = 0;
  uint64_t events_written = 0;
  uint64_t drops_from_freed_rings = 0;
  // Recorded and never written, besides ring-full drops (docs/trace-format.md, kEnd).
  uint64_t unwritten_at_exit = 0;
  // The recorder's own cost, from the rings already freed (recorder_cost).
  uint64_t capture_ticks_of_freed = 0;
  uint64_t captures_of_freed = 0;
  uint32_t reopened_noted = 0;  // the writer's reopen count last said
  uint64_t lost_no_memory = 0;
  uint64_t over_size_limit = 0;
  bool size_limit_reached = false;
  // Set when the collector is asked to stop: past it, drains write no more
  // events, and the last one counts what the rings still hold.
  std::atomic<uint64_t> drain_deadline_ns{0};
  std::vector<Event> scratch;
  // Launches folded into runs (SYNCSCOPE_DETAIL; off with the GPU timeline,
  // whose join needs every launch): made with the collector, so its
  // sequence ids are this file's.
  LaunchAggregator launches{config().aggregate_launches && !config().gpu_timeline};
  LaunchAggregator::Output folded;
  // collector_flush_now: a request counter and the last request served.
  uint64_t flush_requested = 0;
  uint64_t flush_done = 0;
  std::condition_variable flushed;
};

alignas(Collector) unsigned char g_storage[sizeof(Collector)];
// Where the next collector is built: g_storage, or, in a forked child, fresh
// memory, since the parent's collector is abandoned there as it is (its
// mutex may be locked). Abandoned ones stay listed, so that they stay
// reachable: a leak checker (LeakSanitizer in a user's ASan build) must
// not report a fork as a leak.
void* g_collector_memory = g_storage;
Collector* g_abandoned[16] = {};
Collector* g_collector = nullptr;
enum class State {
  kNotStarted,  // starts lazily, on the first recorded call
  kRunning,     // starting or running
  kShutDown,    // for good: the process is exiting, or a flush wedged
  kIdle,        // between sessions: starts only through collector_start_session
};
std::atomic<State> g_state{State::kNotStarted};
// The process whose collector runs: a vfork or fork child calling _exit
// shares or copies our state but owns none of it.
std::atomic<pid_t> g_collector_pid{0};
bool g_sessions = false;     // collector_use_sessions() was called
std::mutex g_session_mutex;  // serialises session start/stop with the exit-time shutdown
char g_trace_path[4200] = {};
std::atomic<bool> g_trace_path_ready{false};  // g_trace_path is written whole (read by other threads)
std::atomic<void (*)()> g_periodic{nullptr};
uint64_t g_start_monotonic_ns = 0;
uint64_t g_start_realtime_ns = 0;

std::string thread_name(uint32_t tid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buffer[64] = {};
  ssize_t n = read(fd, buffer, sizeof(buffer) - 1);
  close(fd);
  std::string name(buffer, n > 0 ? static_cast<size_t>(n) : 0);
  while (!name.empty() && name.back() == '\n') name.pop_back();
  return name;
}

// Moves everything the rings hold into the writer's buffer. Called with the
// collector mutex held.
bool out_of_time(const Collector& c) {
  const uint64_t deadline = c.drain_deadline_ns.load(std::memory_order_relaxed);
  return deadline != 0 && monotonic_ns() >= deadline;
}

constexpr size_t kFlushAtBytes = 16u << 20;

// SYNCSCOPE_MAX_TRACE_MB: once the file is that large, events are counted,
// not written; the trace says when (info_key::kTraceSizeLimit).
// `incoming`: the bytes about to be added (a chunk that would cross the
// limit is the first one left out).
bool over_size_limit(Collector& c, uint64_t incoming) {
  if (c.size_limit_reached) return true;
  const uint64_t limit = uint64_t{config().max_trace_mib} << 20;
  if (limit == 0 || c.writer.file_bytes() + incoming <= limit) return false;
  c.size_limit_reached = true;
  c.writer.add_process_info(info_key::kTraceSizeLimit, std::to_string(limit) + " at " + std::to_string(monotonic_ns()));
  log_warning("trace %s reached its size limit (%u MiB): later events are counted, not written",
              c.writer.path().c_str(), config().max_trace_mib);
  return true;
}

void flush(Collector& c);

// A run of launches is closed once its thread has launched nothing for this long.
constexpr uint64_t kRunIdleNs = 200000000ull;

// Writes what the launch aggregator let out (sequences before the runs
// that name them), counting every event in it as written or as lost.
void write_folded(Collector& c) {
  LaunchAggregator::Output& out = c.folded;
  const uint64_t events = out.events.size() + out.run_launches;
  if (events == 0 && out.new_sequences.empty()) return;
  uint64_t bytes = out.events.size() * sizeof(Event) + out.runs.size() * sizeof(LaunchRun);
  for (uint32_t id : out.new_sequences) {
    size_t count = 0;
    c.launches.sequence(id, &count);
    bytes += 8 + count * sizeof(Event);
  }
  if (over_size_limit(c, bytes)) {
    c.over_size_limit += events;
    out.clear();
    return;
  }
  bool sequences_kept = true;
  for (uint32_t id : out.new_sequences) {
    size_t count = 0;
    const Event* shapes = c.launches.sequence(id, &count);
    sequences_kept = c.writer.add_launch_sequence(id, shapes, static_cast<uint32_t>(count)) && sequences_kept;
  }
  const size_t kept = c.writer.add_events(out.events.data(), out.events.size());
  c.events_written += kept;
  c.lost_no_memory += out.events.size() - kept;
  // A run whose sequence could not be buffered would name an unknown one.
  size_t runs_kept = sequences_kept ? c.writer.add_launch_runs(out.runs.data(), out.runs.size()) : 0;
  uint64_t in_kept_runs = 0;
  for (size_t i = 0; i < runs_kept; ++i) {
    size_t count = 0;
    c.launches.sequence(out.runs[i].sequence_id, &count);
    in_kept_runs += count;
  }
  c.events_written += in_kept_runs;
  c.lost_no_memory += out.run_launches - in_kept_runs;
  out.clear();
}

void drain(Collector& c, bool last = false) {
  c.clock.refine();
  ThreadState* prev = nullptr;
  ThreadState* state = registry_head();
  while (state != nullptr) {
    ThreadState* next = state->next;
    bool exited = state->exited.load(std::memory_order_acquire);
    if (!state->name_written) {
      c.writer.add_thread(state->tid, thread_name(state->tid));
      state->name_written = true;
    }
    size_t n;
    bool late = false;
    while (!(late = out_of_time(c)) && (n = state->ring.pop(c.scratch.data(), c.scratch.size())) > 0) {
      size_t kept = 0;
      for (size_t i = 0; i < n; ++i) {
        Event& e = c.scratch[i];
        e.start_ns = c.clock.to_ns(e.start_ns);
        e.end_ns = c.clock.to_ns(e.end_ns);
        // A call of an earlier session held back for its Python frames
        // (pending until the thread's next GIL release) belongs to none.
        if (g_sessions && e.start_ns < g_start_monotonic_ns) continue;
        c.scratch[kept++] = e;
      }
      n = kept;
      for (size_t i = 0; i < n; ++i) c.launches.add(c.scratch[i], &c.folded);
      write_folded(c);
      // A long backlog (a long flush period, a burst) goes out as it is
      // drained: the buffer stays small, and the time bound has meaning.
      if (c.writer.buffered_bytes() >= kFlushAtBytes) flush(c);
    }
    // Counted once, by the last drain (nothing is pushed any more then).
    if (late && last) c.unwritten_at_exit += state->ring.unread();
    uint64_t dropped = state->ring.dropped() - state->drops_baseline;
    if (dropped != state->drops_reported) {
      c.writer.add_drops(state->tid, dropped);
      state->drops_reported = dropped;
    }
    if (exited) {
      c.launches.close_thread(state->tid, &c.folded);  // nothing more will come
      write_folded(c);
    }
    if (exited && prev != nullptr) {
      // Nothing can be pushed any more; its drops live on in the total.
      c.drops_from_freed_rings += dropped;
      c.capture_ticks_of_freed += state->capture_ticks.load(std::memory_order_relaxed);
      c.captures_of_freed += state->captures.load(std::memory_order_relaxed);
      registry_remove_after(prev, state);
    } else {
      prev = state;
    }
    state = next;
  }
  // Runs of threads that stopped launching; the last drain closes them all.
  // (The trace of a killed process lacks each thread's open run: at most
  // LaunchAggregator::kMaxRun launches.)
  if (last) {
    c.launches.close_all(&c.folded);
  } else {
    c.launches.close_stale(monotonic_ns(), kRunIdleNs, &c.folded);
  }
  write_folded(c);
  // Stacks after events: every stack an event of this drain refers to was
  // interned before that event was pushed, so it is published by now.
  // Python code objects first, so every frame of a stack below is named.
  publish_python_code(c.writer, &c.code_cursor);
  StackTable::Published stack{};
  while (stack_table().next_published(&c.stack_cursor, &stack)) {
    c.modules.cover(stack.pcs, stack.depth, c.writer);
    c.writer.add_stack(stack.id, stack.pcs, stack.depth);
    if (stack.python_depth > 0) c.writer.add_python_stack(stack.id, stack.python, stack.python_depth);
  }
  gpu_timeline_drain(c.writer, /*room=*/!over_size_limit(c, 0));
  nvtx_drain(c.writer);  // after the events: a range's name may trail its event by one drain
}

uint64_t total_dropped(const Collector& c) {
  uint64_t total = c.drops_from_freed_rings;
  for (ThreadState* s = registry_head(); s != nullptr; s = s->next) total += s->ring.dropped() - s->drops_baseline;
  return total;
}

void flush(Collector& c) {
  std::string error;
  if (!c.writer.flush(&error)) {
    log_warning("cannot write trace %s: %s; recording stopped", c.writer.path().c_str(), error.c_str());
    report_status(kStatusWriteFailed, "%s: %s", c.writer.path().c_str(), error.c_str());
    stop_recording();
    return;
  }
  if (c.writer.reopened() != c.reopened_noted) {
    c.reopened_noted = c.writer.reopened();
    log_warning("the program closed the descriptor of trace %s; reopened it (the program's own files untouched)",
                c.writer.path().c_str());
    c.writer.add_process_info(info_key::kTraceReopened, std::to_string(c.reopened_noted));
  }
  // Deleted under us (the file, or its whole directory): every later byte
  // would go to a nameless file nobody can read, using disk until exit.
  if (c.writer.file_unlinked()) {
    log_warning("trace %s was deleted during the run; recording stopped", c.writer.path().c_str());
    report_status(kStatusTraceRemoved, "%s", c.writer.path().c_str());
    stop_recording();
    c.writer.close_without_flush();
  }
}

// What recording cost the program beyond the hooks' fixed path (measured
// per launch by bench/hook_overhead_bench): the time its threads spent
// capturing stacks and Python frames, and this thread's CPU time. Written
// once, with the trace's end; `syncscope report --details` shows it.
void write_recorder_cost(Collector& c) {
  uint64_t ticks = c.capture_ticks_of_freed, captures = c.captures_of_freed;
  for (ThreadState* s = registry_head(); s != nullptr; s = s->next) {
    ticks += s->capture_ticks.load(std::memory_order_relaxed);
    captures += s->captures.load(std::memory_order_relaxed);
  }
  c.writer.add_process_info(info_key::kRecorderCaptureNs, std::to_string(c.clock.duration_ns(ticks)));
  c.writer.add_process_info(info_key::kRecorderCaptures, std::to_string(captures));
  c.writer.add_process_info(info_key::kRecorderCollectorCpuNs, std::to_string(thread_cpu_ns()));
}

void* collector_main(void*) {
  InHookScope in_hook;  // for the thread's life: the collector never records itself
  Collector& c = *g_collector;
  std::unique_lock<std::mutex> lock(c.mutex);
  write_process_info(c.writer);
  c.writer.add_process_info(info_key::kTraceDetail, c.launches.enabled()                ? "aggregated"
                                                    : config().aggregate_launches ? "full (GPU timeline)"
                                                                                  : "full");
  while (!c.stop) {
    uint64_t request = c.flush_requested;
    drain(c);
    flush(c);
    c.flush_done = request;
    c.flushed.notify_all();
    if (auto task = g_periodic.load(std::memory_order_acquire)) task();
    if (c.flush_requested == c.flush_done && !c.stop) {
      c.wake.wait_for(lock, std::chrono::milliseconds(config().flush_ms));
    }
  }
  gpu_timeline_stop();  // CUPTI's last records, for the final drain
  drain(c, /*last=*/true);
  EndPayload end{monotonic_ns(), c.events_written, total_dropped(c), stack_table().dropped()};
  end.events_unwritten_at_exit = c.unwritten_at_exit;
  end.events_lost_no_memory = c.lost_no_memory;
  end.events_over_size_limit = c.over_size_limit;
  if (c.unwritten_at_exit > 0) {
    log_warning("the last drain ran out of time (%u ms): %llu events counted, not written", config().exit_flush_ms,
                static_cast<unsigned long long>(c.unwritten_at_exit));
  }
  write_recorder_cost(c);
  c.writer.add_end(end);
  flush(c);
  c.writer.close();
  // Said here too: the trace may be unreadable, and its drop counts with it.
  const uint64_t lost =
      end.events_dropped + end.events_unwritten_at_exit + end.events_lost_no_memory + end.events_over_size_limit;
  if (lost > 0 && lost == end.events_dropped) {
    report_status(kStatusEventsDropped, "%llu", static_cast<unsigned long long>(lost));
  } else if (lost > 0) {
    report_status(kStatusEventsDropped,
                  "%llu (ring full: %llu; left at exit: %llu; out of memory: %llu; over the trace size limit: %llu)",
                  static_cast<unsigned long long>(lost), static_cast<unsigned long long>(end.events_dropped),
                  static_cast<unsigned long long>(end.events_unwritten_at_exit),
                  static_cast<unsigned long long>(end.events_lost_no_memory),
                  static_cast<unsigned long long>(end.events_over_size_limit));
  }
  c.flush_done = c.flush_requested;
  c.flushed.notify_all();
  return nullptr;
}

bool open_trace(Collector& c) {
  FileHeader header{};
  std::memcpy(header.magic, kTraceMagic, sizeof(header.magic));
  header.version = kTraceVersion;
  header.header_size = sizeof(FileHeader);
  header.pid = static_cast<uint32_t>(getpid());
  header.ppid = static_cast<uint32_t>(getppid());
  header.start_monotonic_ns = g_start_monotonic_ns;
  header.start_realtime_ns = g_start_realtime_ns;
  header.event_size = sizeof(Event);
  header.flags = clock_uses_tsc() ? uint32_t{kFileClockTsc} : 0u;
  std::string error;
  if (!c.writer.open(config().output_dir, header, &error)) {
    log_warning("cannot create a trace in %s: %s; recording disabled", config().output_dir, error.c_str());
    report_status(kStatusTraceOpenFailed, "%s", error.c_str());
    return false;
  }
  log_debug("trace %s", c.writer.path().c_str());
  // The launcher checks at the end that every trace it heard of is still there.
  report_status(kStatusTraceOpened, "%s", c.writer.path().c_str());
  return true;
}

bool start_collector() {
  g_collector_pid.store(getpid(), std::memory_order_relaxed);
  if (g_collector_memory == nullptr) {
    g_collector_memory = ::operator new(sizeof(Collector), std::align_val_t{alignof(Collector)}, std::nothrow);
    if (g_collector_memory == nullptr) {
      log_warning("no memory for the collector; recording disabled");
      stop_recording();
      return false;
    }
  }
  g_collector = new (g_collector_memory) Collector();
  Collector& c = *g_collector;
  c.scratch.resize(4096);
  if (g_start_monotonic_ns == 0) {
    g_start_monotonic_ns = monotonic_ns();
    g_start_realtime_ns = realtime_ns();
  }
  if (!open_trace(c)) {
    stop_recording();
    return false;
  }
  g_trace_path_ready.store(false, std::memory_order_release);
  std::snprintf(g_trace_path, sizeof(g_trace_path), "%s", c.writer.path().c_str());
  g_trace_path_ready.store(true, std::memory_order_release);
  nvtx_forget_written();  // this file needs every range name
  gpu_timeline_start();  // before the first launch it should see
  // The collector must never receive the target's signals: block them all
  // in the new thread (the mask is inherited), then restore ours.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&c.thread, nullptr, collector_main, nullptr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) {
    log_warning("cannot start the collector thread (%s); recording disabled", std::strerror(rc));
    report_status(kStatusRecorderFailed, "cannot start the collector thread: %s", std::strerror(rc));
    c.writer.close();
    stop_recording();
    return false;
  }
  pthread_setname_np(c.thread, "syncscope");
  c.thread_running = true;
  return true;
}

// What the end of a recording needs after its last drain's events: the
// stacks, the end record, one write, the close.
constexpr uint64_t kAfterLastDrainNs = 1500000000ull;

// Stops the collector thread after its final drain; false if it did not
// finish in time (a wedged filesystem must not hang the target).
bool join_collector(Collector& c) {
  const uint64_t drain_ns = uint64_t{config().exit_flush_ms} * 1000000ull;
  c.drain_deadline_ns.store(monotonic_ns() + drain_ns, std::memory_order_relaxed);  // before it can take the lock
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.stop = true;
  }
  c.wake.notify_all();
  timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  const uint64_t wait_ns = drain_ns + kAfterLastDrainNs;
  deadline.tv_sec += static_cast<time_t>(wait_ns / 1000000000ull);
  deadline.tv_nsec += static_cast<long>(wait_ns % 1000000000ull);
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000L;
  }
  if (pthread_timedjoin_np(c.thread, nullptr, &deadline) != 0) return false;
  c.thread_running = false;
  return true;
}

// Before a new session: what the rings still hold was pushed by calls that
// raced the last stop (or before any session); it belongs to no session.
// Only called with no collector thread, so this thread is the sole consumer.
void forget_previous_sessions() {
  Event discard[256];
  for (ThreadState* state = registry_head(); state != nullptr; state = state->next) {
    while (state->ring.pop(discard, 256) > 0) {
    }
    state->name_written = false;
    state->drops_baseline = state->ring.dropped();
    state->drops_reported = 0;
  }
}

}  // namespace

void ensure_collector_running() {
  State expected = State::kNotStarted;
  if (g_state.load(std::memory_order_acquire) != State::kNotStarted) return;
  if (!g_state.compare_exchange_strong(expected, State::kRunning, std::memory_order_acq_rel)) return;
  start_collector();
}

void collector_use_sessions() {
  g_sessions = true;
  State expected = State::kNotStarted;
  g_state.compare_exchange_strong(expected, State::kIdle, std::memory_order_acq_rel);
}

bool collector_start_session(char* error, unsigned long error_size) {
  std::lock_guard<std::mutex> session(g_session_mutex);
  State expected = State::kIdle;
  if (!g_state.compare_exchange_strong(expected, State::kRunning, std::memory_order_acq_rel)) {
    std::snprintf(error, error_size, "%s",
                  expected == State::kShutDown ? "the process is exiting" : "the recorder is already running");
    return false;
  }
  if (g_collector != nullptr) {
    g_collector->~Collector();
    g_collector = nullptr;
  }
  forget_previous_sessions();
  g_start_monotonic_ns = 0;
  if (!start_collector()) {
    std::snprintf(error, error_size, "cannot create a trace in %s (see the target's stderr)", config().output_dir);
    g_state.store(State::kIdle, std::memory_order_release);
    return false;
  }
  return true;
}

bool collector_flush_now() {
  const State state = g_state.load(std::memory_order_acquire);
  if (state == State::kNotStarted) return true;  // recording, but nothing recorded yet: nothing to flush
  if (state != State::kRunning || g_collector == nullptr) return false;
  Collector& c = *g_collector;
  std::unique_lock<std::mutex> lock(c.mutex);
  uint64_t want = ++c.flush_requested;
  c.wake.notify_all();
  return c.flushed.wait_for(lock, std::chrono::seconds(5), [&] { return c.flush_done >= want; });
}

unsigned long long collector_stop_session() {
  std::lock_guard<std::mutex> session(g_session_mutex);
  if (g_state.load(std::memory_order_acquire) != State::kRunning || g_collector == nullptr) return 0;
  Collector& c = *g_collector;
  if (c.thread_running && !join_collector(c)) {
    log_warning("trace flush did not finish in time; recording is off for good");
    g_state.store(State::kShutDown, std::memory_order_release);
    return c.events_written;
  }
  g_state.store(State::kIdle, std::memory_order_release);
  return c.events_written;
}

const char* collector_trace_path() { return g_trace_path_ready.load(std::memory_order_acquire) ? g_trace_path : ""; }

void collector_set_periodic(void (*task)()) { g_periodic.store(task, std::memory_order_release); }

// A process that never called CUDA (a shell, a DataLoader worker) writes no
// trace; one line in a shared log lets the report count it. One write(2)
// with O_APPEND: lines from concurrent processes never interleave.
void note_process_without_cuda() {
  const Config& settings = config();
  if (!settings.enabled || settings.output_dir[0] == '\0') return;
  char path[4200];
  std::snprintf(path, sizeof(path), "%s/%s", settings.output_dir, kProcessesWithoutCudaFile);
  // O_NOFOLLOW: never append through a link another user planted there.
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return;  // no output directory: nothing to count into
  char exe[512] = {};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n < 0) n = 0;
  exe[n] = '\0';
  char line[700];
  int len =
      std::snprintf(line, sizeof(line), "%d %d %s\n", static_cast<int>(getpid()), static_cast<int>(getppid()), exe);
  if (len > 0) {
    ssize_t ignored = write(fd, line, static_cast<size_t>(len) < sizeof(line) ? len : sizeof(line) - 1);
    (void)ignored;
  }
  close(fd);
}

void collector_shutdown() {
  // A session being started or stopped finishes first (bounded by its join).
  std::lock_guard<std::mutex> session(g_session_mutex);
  State previous = g_state.exchange(State::kShutDown, std::memory_order_acq_rel);
  if (previous == State::kNotStarted && !g_sessions) note_process_without_cuda();
  if (previous != State::kRunning || g_collector == nullptr) return;
  Collector& c = *g_collector;
  if (!c.thread_running) return;
  // Bounded: a wedged filesystem must not hang the target's exit.
  if (!join_collector(c)) {
    log_warning("trace flush did not finish in time at exit; the trace may lack its end");
    report_status(kStatusFlushTimeout, "the final flush of %s did not finish in time; the trace may lack its end",
                  g_trace_path);
  }
}

void collector_flush_at_exit_call() {
  if (g_state.load(std::memory_order_acquire) != State::kRunning) return;
  if (g_collector_pid.load(std::memory_order_relaxed) != getpid()) return;  // a (v)fork child's _exit
  collector_shutdown();
}

void collector_before_fork() {
  if (g_collector != nullptr && g_state.load(std::memory_order_acquire) == State::kRunning) g_collector->mutex.lock();
}

void collector_after_fork_parent() {
  if (g_collector != nullptr && g_state.load(std::memory_order_acquire) == State::kRunning) {
    g_collector->mutex.unlock();
  }
}

void collector_after_fork_child() {
  // The child has no collector thread. Abandon the parent's collector object
  // (its mutex is locked, its file belongs to the parent) except for closing
  // the inherited descriptor, and let the child's first recorded call start
  // its own collector and trace file.
  if (g_collector != nullptr) {
    g_collector->writer.close_without_flush();
    for (Collector*& slot : g_abandoned) {
      if (slot == nullptr) {
        slot = g_collector;
        break;
      }
    }
    g_collector = nullptr;
    g_collector_memory = nullptr;  // the next one gets memory of its own
  }
  // The control thread may have held it at fork; it does not exist here.
  new (&g_session_mutex) std::mutex();
  g_start_monotonic_ns = 0;
  if (g_sessions) {
    // A child of a dormant or attached process has no control endpoint to
    // end a session with: it stays dormant (fork without exec; an exec'd
    // child loads the preload afresh).
    if (g_state.load(std::memory_order_relaxed) != State::kShutDown) {
      g_state.store(State::kIdle, std::memory_order_release);
    }
    g_recording.store(false, std::memory_order_relaxed);
    return;
  }
  if (g_state.load(std::memory_order_relaxed) != State::kShutDown) {
    g_state.store(State::kNotStarted, std::memory_order_release);
  }
  if (g_state.load(std::memory_order_relaxed) == State::kNotStarted && config().enabled) {
    g_recording.store(true, std::memory_order_relaxed);
  }
}

}  // namespace syncscope::preload
