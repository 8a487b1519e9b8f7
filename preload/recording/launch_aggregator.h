// Folds each thread's kernel launches into runs of a repeated sequence
// (trace/launch_runs.h), in the collector thread, off the hooks' path.
// Fed every event a ring yields, in ring order; what comes out is what the
// trace gets: the events that stay events, the new sequences, the runs.
//
// Where a run ends decides whether its sequence repeats, and so whether the
// trace stays small: a run ends at any other call of its thread (a sync, a
// copy, an event record...), at an order mark (a call whose event reaches
// the ring late, preload/recording/call_record.h), or where the launches' own content
// says so (the last three launches hash to a cut, as content-defined
// chunking does), so a training step's launches are cut at the same places
// every step whatever the phase of the last cut. A run that reaches kMaxRun
// launches without such a cut is cut after its largest window hash (as
// winnowing does): in a sequence that repeats with a shorter period, that is
// the same place in every period, so the runs still repeat.
//
// A step boundary (the optimizer-step marker or the backward marker, of
// whichever thread) also ends every other thread's run there: autograd's
// thread makes no call but launches between its passes, and a run spanning
// the optimizer step, or the next backward() call, would spread its
// launches over it, some into the wrong step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace/event.h"
#include "trace/launch_runs.h"

namespace syncscope::preload {

class LaunchAggregator {
 public:
  struct Output {
    std::vector<Event> events;            // to write as events, in order
    std::vector<uint32_t> new_sequences;  // to write (sequence()) before the runs
    std::vector<LaunchRun> runs;
    uint64_t run_launches = 0;  // launches inside `runs`
    void clear() {
      events.clear();
      new_sequences.clear();
      runs.clear();
      run_launches = 0;
    }
  };

  static constexpr size_t kMinRun = 16;     // shorter stretches stay events
  // No content cut before this many launches: a step of few kernels repeats
  // its windows every few launches, and runs that short would cost more.
  static constexpr size_t kMinCutRun = 256;
  static constexpr size_t kMaxRun = kMaxLaunchSequence;  // the collector's memory per thread (256 KiB)
  static constexpr uint64_t kCutMask = 255;  // one content cut in 256 launches on average
  // The dictionary's bound (launch shapes of every sequence, 64 B each):
  // past it, new sequences are written as events.
  static constexpr size_t kMaxShapes = 1u << 16;

  // `enabled` false: every event passes through (order marks are dropped).
  explicit LaunchAggregator(bool enabled) : enabled_(enabled) {}

  bool enabled() const { return enabled_; }
  void add(const Event& e, Output* out);
  // Closes the runs whose last launch is older than `idle_ns` (a pause in
  // launching, as a data-loading wait: the same place each step). No cut by
  // a run's age: it would fall anywhere in a step and make new sequences.
  void close_stale(uint64_t now_ns, uint64_t idle_ns, Output* out);
  void close_thread(uint32_t tid, Output* out);
  void close_all(Output* out);

  const Event* sequence(uint32_t id, size_t* count) const;
  size_t sequence_count() const { return sequences_.size(); }
  uint64_t launches_in_runs() const { return launches_in_runs_; }
  uint64_t runs() const { return runs_; }

  // A launch that may join a run (a launch with no stack, no error, not captured).
  static bool foldable(const Event& e);

 private:
  struct Open {
    std::vector<Event> launches;
    std::vector<uint64_t> windows;   // each launch's window hash (the last three shapes)
    uint64_t recent[3] = {0, 0, 0};  // the last launches' shape hashes, for content cuts
  };
  struct Sequence {
    uint32_t offset, count;
  };

  void close(uint32_t tid, Open& open, Output* out) { close_first(tid, open, open.launches.size(), out); }
  // Ends every thread's run at a step boundary (launches made before it go
  // out, those after stay open), and remembers it for launches drained later.
  void cut_at_step_boundary(uint64_t at_ns, Output* out);
  // Whether a remembered step boundary lies in (last_ns, next_ns].
  bool boundary_between(uint64_t last_ns, uint64_t next_ns) const;
  // Writes the first `n` launches of the open run (a run, or events), keeps the rest open.
  void close_first(uint32_t tid, Open& open, size_t n, Output* out);
  // The sequence's id, or -1 when the dictionary is full.
  int64_t intern(const std::vector<Event>& launches, uint64_t hash, Output* out);

  bool enabled_;
  std::unordered_map<uint32_t, Open> open_;
  std::vector<Event> shapes_;
  std::vector<Sequence> sequences_;
  std::unordered_multimap<uint64_t, uint32_t> by_hash_;
  // The latest step boundaries, sorted (a few drains' worth is enough: a
  // thread's launches reach the collector within a drain or two of the marker).
  static constexpr size_t kMaxBoundaries = 256;
  std::vector<uint64_t> boundaries_;
  uint64_t launches_in_runs_ = 0, runs_ = 0;
};

}  // namespace syncscope::preload
