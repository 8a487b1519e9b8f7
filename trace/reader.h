// Reading trace files back: one ProcessTrace per file. Used by the CLI, the
// detectors' tests and the integration tests; never by the preload.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "trace/event.h"
#include "trace/format.h"
#include "trace/gpu_record.h"

namespace syncscope {

struct Module {
  uint64_t start = 0;  // lowest mapped address of the object
  uint64_t end = 0;    // one past the highest
  uint64_t bias = 0;   // load bias: symbol address = pc - bias
  std::string path;
  std::string build_id;  // GNU build-id as lowercase hex, "" when not recorded (older recorders, no note)
};

struct PythonCode {
  std::string file;
  std::string function;  // qualified name where Python knows it
  uint32_t first_line = 0;
};

struct PythonFrame {
  uint32_t code_id = 0;  // key into ProcessTrace::python_code (0: unknown)
  uint32_t line = 0;
};

// One piece of GPU work from the GPU timeline (docs/gpu-timeline.md), with
// what the reader joined it to.
struct GpuActivity : GpuRecord {
  static constexpr uint64_t kNoStream = ~uint64_t{0};
  int64_t event_index = -1;     // the recorded call that caused it (index into `events`), -1: none found
  uint64_t stream = kNoStream;  // its cudaStream_t: the joined event's, else by CUPTI stream id; kNoStream unknown
};

struct ProcessTrace {
  std::string file;  // the trace file it came from
  FileHeader header{};
  std::vector<Event> events;                                             // sorted by start_ns (stable)
  std::unordered_map<uint32_t, std::vector<uint64_t>> stacks;            // id -> pcs, innermost first
  std::unordered_map<uint32_t, std::vector<PythonFrame>> python_stacks;  // stack id -> frames, innermost first
  std::unordered_map<uint32_t, PythonCode> python_code;
  std::vector<Module> modules;  // sorted by start
  std::map<uint32_t, std::string> thread_names;
  std::vector<std::pair<std::string, std::string>> process_info;  // argv, exe, env, ...
  // GPU timeline (empty without CUPTI; process_info "gpu_timeline" says why).
  std::vector<GpuActivity> gpu_activity;  // kernels, copies, memsets, syncs; sorted by start_ns (stable)
  std::vector<GpuRecord> gpu_api;         // the runtime/driver API records they join through; sorted by start_ns
  // The sampled timeline's windows (GpuKind::kWindow), sorted: GPU work was
  // recorded only for calls issued inside one. Empty: the whole trace was
  // covered (--gpu-timeline=full, or a trace from before sampling).
  std::vector<std::pair<uint64_t, uint64_t>> gpu_windows;
  std::unordered_map<uint32_t, std::string> strings;  // kString: kernel names
  // Every event recorded and not written, from kEnd (or the sum of the last
  // kDrops per thread): ring full, plus the two counts below.
  uint64_t events_dropped = 0;
  uint64_t events_unwritten_at_exit = 0;  // of which: left when the last drain's time bound ran out
  uint64_t events_lost_no_memory = 0;     // of which: the writer could not buffer them
  uint64_t events_over_size_limit = 0;    // of which: past the trace size limit (run --max-trace-size)
  uint64_t stacks_dropped = 0;
  // Launches put back from aggregated runs (trace/launch_runs.h; their
  // events carry kFlagAggregated), and the runs they came in.
  uint64_t aggregated_launches = 0;
  uint64_t launch_runs = 0;
  bool folded = false;  // runs came back folded (ReadOptions::fold_launch_runs): events carry kFlagFolded
  // Read window by window (trace/trace_stream.h: a trace too long to hold
  // whole) in this many windows; `events` then holds only its first call and
  // the one that ended last, for the span (0: read whole).
  uint64_t read_in_windows = 0;
  bool complete = false;   // a kEnd record closed the file
  std::string truncation;  // why not complete, for the report ("" when complete)

  // The calls its events stand for (a folded run counts its launches).
  uint64_t calls() const;
  // Value of a process_info key, or "" if absent.
  std::string info(const std::string& key) const;
  // A kernel's name ("" when not a kernel or unknown).
  std::string_view gpu_name(const GpuRecord& record) const;
  // Module containing pc, or nullptr.
  const Module* module_for(uint64_t pc) const;
};

// Files a GPU record where it belongs: API records in gpu_api, sampling
// windows in gpu_windows, the rest in gpu_activity (not yet joined:
// join_gpu_activity, trace/gpu_join.h).
void add_gpu_record(ProcessTrace& trace, const GpuRecord& record);

struct ReadOptions {
  // The folded view (the reporter's on long traces): each run of aggregated
  // launches comes back as one event per block and stream (fold_launch_run,
  // trace/launch_runs.h) instead of every launch, so the events follow the
  // file's runs, not its launches. Only past `fold_above_calls` calls: a
  // shorter trace is read launch by launch, its analysis exact. A trace that
  // also holds GPU activity is read launch by launch all the same: its
  // records join individual launches.
  bool fold_launch_runs = false;
  uint64_t fold_above_calls = 0;
};

// Events in start order: the order of ProcessTrace::events (stable sorts keep file order on ties).
bool starts_before(const Event& a, const Event& b);

// Reads one trace file. Every complete record is returned even when the file
// ends mid-record (the process was killed): `complete` is then false and
// `truncation` says where. A file that is not a syncscope trace, has an
// unsupported version, or is corrupt before its first record is an error
// naming the file and the reason; it never crashes.
absl::StatusOr<ProcessTrace> read_trace_file(const std::string& path, const ReadOptions& options = {});
// The same from a file's bytes already in memory (the fuzzer,
// tests/fuzz/fuzz_trace_reader.cpp); `name` stands for the path in the
// trace and its messages.
absl::StatusOr<ProcessTrace> read_trace_bytes(std::string_view bytes, const std::string& name,
                                              const ReadOptions& options = {});

// Trace files in a directory (by suffix), sorted by name; an error if the
// directory cannot be read.
absl::StatusOr<std::vector<std::string>> list_trace_files(const std::string& dir);

}  // namespace syncscope
