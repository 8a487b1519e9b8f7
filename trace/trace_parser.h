// Parses a trace file's records into a ProcessTrace, one record at a time
// (docs/trace-format.md). The reader (trace/reader.h) parses every record
// and returns the trace; the stream (trace/trace_stream.h) hands the events
// out in windows as it goes, so that a day-long trace is never held whole.
//
// The input may be cut short (the process was killed) or damaged: every
// size read from the file is checked against the bytes actually present
// before it is used, so no input can make the parser crash
// (tests/fuzz/fuzz_trace_reader).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "trace/byte_source.h"
#include "trace/launch_runs.h"
#include "trace/reader.h"

namespace syncscope {

class TraceParser {
 public:
  TraceParser(ByteSource& bytes, std::string path, ReadOptions options)
      : bytes_(bytes), path_(std::move(path)), options_(options) {}

  // The header, then a first pass over the records that counts their
  // events (and decides whether runs are read folded, ReadOptions). An
  // error when the file is not a trace, or is damaged before its first record.
  absl::Status begin();
  // What the records will give: events, counting each run as it will come
  // back (one event per block folded, every launch otherwise); calls counts
  // a folded run's launches. Both as far as the first pass could read.
  uint64_t counted_events() const { return counted_events_; }
  uint64_t counted_calls() const { return counted_calls_; }
  bool has_gpu_work() const { return gpu_work_; }

  // Parses the next record, its events appended to trace().events (kept in
  // start order but for what the last records may still bring before them:
  // sorted_upto()). False once there is none: the end, or damage
  // (trace().truncation then says where).
  bool next_record();
  // The counts of the end record (or the drops records), `complete`, the
  // truncation text, the modules in order; after the last next_record().
  void finish();
  // Every record (none read yet), then finish(): the trace whole, its
  // events in order and its GPU work joined to its calls (read_trace_file).
  ProcessTrace take_whole();

  ProcessTrace& trace() { return trace_; }
  const ProcessTrace& trace() const { return trace_; }
  // Events [0, sorted_upto()) of trace().events are in start order.
  size_t sorted_upto() const { return unsorted_ ? 0 : sorted_upto_; }
  // The stream took events [0, n) out of trace().events. The merging
  // budget starts again: it is a multiple of the events held, not read.
  void erased_front(size_t n) {
    sorted_upto_ = n <= sorted_upto_ ? sorted_upto_ - n : 0;
    merge_work_ = 0;
  }
  // The stream sorted trace().events itself (after the parser gave up merging).
  void sorted_all() {
    sorted_upto_ = trace_.events.size();
    unsorted_ = false;
    merge_work_ = 0;
  }

 private:
  std::string parse_record(uint32_t type, const unsigned char* p, uint32_t size);
  void keep_sorted();

  ByteSource& bytes_;
  std::string path_;
  ReadOptions options_;
  ProcessTrace trace_;
  uint64_t offset_ = 0;  // of the next record
  bool ended_ = false;
  uint64_t counted_events_ = 0, counted_calls_ = 0;
  bool gpu_work_ = false;
  uint32_t event_size_ = sizeof(Event);
  bool fold_ = false;                  // ReadOptions::fold_launch_runs, decided by begin()
  std::map<uint32_t, uint64_t> drops_;  // tid -> last cumulative count
  bool have_end_ = false;
  EndPayload end_{};
  // kLaunchSequence: id -> the launches less their times (trace/launch_runs.h).
  std::unordered_map<uint32_t, std::vector<Event>> sequences_;
  std::unordered_map<uint32_t, FoldedSequence> folded_;  // fold: id -> its runs' folded shape
  // keep_sorted(): events [0, sorted_upto_) are in start order; `merge_work_`
  // counts what merging cost, `unsorted_` gives up on it (one sort at the end).
  size_t sorted_upto_ = 0;
  uint64_t merge_work_ = 0;
  bool unsorted_ = false;
};

// Largest per-event size a reader accepts in the header: room for growth,
// still far from anything absurd.
inline constexpr uint32_t kMaxEventSize = 4096;

}  // namespace syncscope
