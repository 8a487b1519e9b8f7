// Launches recorded in aggregate (docs/trace-format.md, "Aggregated
// launches"): the bulk of a training job's calls are kernel launches, and at
// 64 bytes each a day-long job's trace would not fit on disk nor in the
// reporter. The recorder writes each distinct sequence of launches once
// (kLaunchSequence: the launches less their times, thread and stack) and
// then, for every stretch of a thread's launches that repeats it, one
// LaunchRun: when the stretch began and ended and how long its launches
// took in all. The reader puts the launches back (expand_launch_run) with
// their times spread over the stretch, the first and last exact. Every other
// call (syncs, copies, allocations, frees, events) stays an Event, and no
// stretch spans one, so the order around them is the recorded one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "trace/event.h"

namespace syncscope {

// Payload element of RecordType::kLaunchRuns.
struct LaunchRun {
  uint64_t first_start_ns;  // the first launch's start
  uint64_t last_start_ns;   // the last launch's start
  uint64_t last_end_ns;     // the last launch's end
  uint64_t host_ns;         // the launches' host time, summed
  uint32_t tid;
  uint32_t sequence_id;  // a kLaunchSequence of this file, written before
};
static_assert(sizeof(LaunchRun) == 40, "LaunchRun is part of the trace format");

// The longest sequence a recorder writes; readers refuse longer ones, so a
// run expands to at most this many events (a reader's memory stays within
// about 6.5 KB per byte of file whatever the file holds).
inline constexpr uint32_t kMaxLaunchSequence = 4096;

// What a launch is within a sequence: the event less its times, thread and
// stack (launches in a run carry no stack).
Event launch_shape(const Event& e);
bool same_shape(const Event& a, const Event& b);
// A hash of a shape's identity (API, stream, kernel, bytes, flags, device).
uint64_t shape_hash(const Event& shape);

// Appends the run's launches to `out`: times spread evenly from the first
// start to the last, the host time shared equally (the last ends exactly
// at last_end_ns), each flagged kFlagAggregated.
void expand_launch_run(const LaunchRun& run, const Event* shapes, size_t count, std::vector<Event>* out);

// The folded view of a run (the reporter's, so that a day-long trace is
// analysed in memory that follows its runs, not its launches): one event
// per block of the sequence, stream the block launches on and API (so that
// the API table stays exact: __cudaLaunchKernel, cuLaunchKernelEx and an
// async memset of one block are three events), in order of first call, flagged kFlagAggregated | kFlagFolded, standing for those
// launches (calls_of, host_ns_of, kernels_of in trace/event.h). Its times
// are those expand_launch_run gives its first and last launch; `dst` is
// kFoldedLaunchTag | sequence_id << 16 | whether the block is a partial
// last one << 15 | the group's place (stream and API), so that a run of the same sequence
// folds to the same calls every time.
//
// A block is the whole sequence, unless the sequence repeats a shorter one
// of at least kMinFoldedBlock launches at least twice (a loop of launches
// and nothing else runs on until a content cut, through several steps):
// then each repeat of it (or of the smallest multiple of it with a
// sixteenth of the sequence) is a block, so that the steps stay visible to
// the step search. Shorter repeats are a layer's, in a model of identical
// layers: they stay in one block.
inline constexpr uint32_t kMinFoldedBlock = 32;
inline constexpr uint32_t kMaxFoldedBlocks = 16;
struct FoldedSequence {
  struct Group {
    Event shape;  // the group's first call, its identity replaced (dst, kernel count)
    uint32_t first = 0, last = 0, count = 0;  // its first and last launch in the sequence, and how many
  };
  // In order of their first launch; groups of the same block and stream in
  // different repeats share their shape's dst.
  std::vector<Group> groups;
  uint32_t launches = 0;
};
// Made once per sequence: the reader folds every run of it through this.
FoldedSequence fold_sequence(uint32_t sequence_id, const Event* shapes, size_t count);
void fold_launch_run(const LaunchRun& run, const FoldedSequence& sequence, std::vector<Event>* out);

}  // namespace syncscope
