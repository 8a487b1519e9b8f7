// A trace read in windows of events, for traces too long to hold whole (a
// day-long job's): the events come out in start order, a window at a time,
// while the tables they refer to (stacks, Python code, modules, threads,
// strings, process facts) build up in tables() as the file is read. Memory
// follows the window, not the file.
//
// Events reach the file per thread and drain, so a record may hold events
// that began before some of the previous records' (a thread's events held
// back for their Python frames, a long flush interval). A window therefore
// ends kLagNs before the latest start read so far: what a later record
// brings from before that still sorts into its place. One that comes later
// still (a thread silent for longer) goes into the next window, out of
// order; nothing is lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "trace/byte_source.h"
#include "trace/reader.h"
#include "trace/trace_parser.h"

namespace syncscope {

class TraceStream {
 public:
  static constexpr uint64_t kLagNs = 10'000'000'000ull;  // 10 s

  // The errors of read_trace_file (not found, not a trace, ...).
  static absl::StatusOr<std::unique_ptr<TraceStream>> open(const std::string& path, const ReadOptions& options);

  // What the first pass counted (TraceParser::counted_events, counted_calls).
  uint64_t counted_events() const { return parser_.counted_events(); }
  uint64_t counted_calls() const { return parser_.counted_calls(); }
  bool has_gpu_work() const { return parser_.has_gpu_work(); }

  // The whole trace, as read_trace_file gives it (a trace short enough to
  // hold, read without opening it again); only before any next().
  ProcessTrace read_whole() { return parser_.take_whole(); }

  // The next window: about `max_events` events (fewer at the end), in start
  // order, replacing *window. False once every event has come out; then
  // tables() is complete (drop counts, truncation).
  bool next(size_t max_events, std::vector<Event>* window);

  // Every event has come out: the window next() just gave was the last.
  bool done() const { return records_done_ && parser_.trace().events.empty(); }

  // Everything read so far but the events (tables().events holds those read
  // and not yet handed out).
  ProcessTrace& tables() { return parser_.trace(); }

 private:
  TraceStream(std::unique_ptr<FileBytes> bytes, const std::string& path, const ReadOptions& options)
      : bytes_(std::move(bytes)), parser_(*bytes_, path, options) {}
  // Moves the first `n` pending events into *window.
  void hand_out(size_t n, std::vector<Event>* window);

  std::unique_ptr<FileBytes> bytes_;
  TraceParser parser_;
  bool records_done_ = false;
};

}  // namespace syncscope
