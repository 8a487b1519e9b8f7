// TraceWriter: serialises records into a buffer and appends them to a trace
// file. Runs inside the target process (collector thread only), so it uses
// nothing beyond the C++ standard library and POSIX, throws nothing, and
// never blocks the target's own threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/owned_fd.h"

#include "trace/event.h"
#include "trace/format.h"
#include "trace/gpu_record.h"
#include "trace/launch_runs.h"

namespace syncscope {

class TraceWriter {
 public:
  TraceWriter() = default;
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Creates DIR/<pid>-<n>.sstrace with O_EXCL, picking the first free n
  // (an exec'd process keeps its pid, so the name must not collide), creating
  // DIR as with mkdir -p, and writes the file header at once (an empty run
  // still leaves a valid file). The writer fills in magic, version,
  // header_size and event_size itself; the rest of `header` is written as is.
  // Returns false and fills *error (if not null) on failure.
  bool open(const std::string& dir, const FileHeader& header, std::string* error);
  // Adopt an already-open descriptor (tests). Writes the header; on failure
  // the descriptor is closed.
  bool open_fd(int fd, const FileHeader& header, std::string* error);
  bool is_open() const { return file_.held(); }
  // True when the open file has no name left (it, or its directory, was
  // deleted): whatever is written now can never be read back.
  bool file_unlinked() const;
  const std::string& path() const { return path_; }

  // Buffer records; nothing reaches the file until flush(). Strings longer than
  // the limits in docs/trace-format.md are cut, stacks deeper than
  // kMaxStackDepth/kMaxPythonDepth keep their innermost frames. After an I/O
  // error these do nothing.
  // Returns how many were kept (fewer only when memory ran out: the caller counts the rest).
  size_t add_events(const Event* events, size_t count);
  // Aggregated launches (trace/launch_runs.h): a sequence before the first
  // run that names it. False / fewer kept when memory ran out.
  bool add_launch_sequence(uint32_t id, const Event* shapes, uint32_t count);
  size_t add_launch_runs(const LaunchRun* runs, size_t count);
  void add_stack(uint32_t id, const uint64_t* pcs, uint32_t depth);
  void add_module(uint64_t start, uint64_t end, uint64_t bias, std::string_view path);
  // Right after the module's add_module (same start); ids longer than
  // kMaxBuildIdLen are cut, empty ones not written.
  void add_module_build_id(uint64_t start, const void* id, uint32_t len);
  void add_thread(uint32_t tid, std::string_view name);
  void add_process_info(std::string_view key, std::string_view value);
  void add_drops(uint32_t tid, uint64_t dropped_total);
  void add_end(const EndPayload& end);
  void add_python_code(uint32_t id, uint32_t first_line, std::string_view file, std::string_view name);
  void add_python_stack(uint32_t id, const uint64_t* frames, uint32_t depth);
  // GPU timeline (docs/gpu-timeline.md): activity records, split so no
  // payload exceeds kMaxRecordPayload, and interned strings (kernel names).
  void add_gpu_records(const GpuRecord* records, size_t count);
  void add_string(uint32_t id, std::string_view text);

  // Appends the buffered records to the file with as few write(2) calls as the
  // kernel allows, retrying on EINTR and short writes. On an I/O error the
  // writer closes the file and reports false once; later calls are no-ops.
  // The descriptor is checked first (trace/owned_fd.h): one the program
  // closed is reopened by its path when that is still our file, else the
  // writer stops (the trace then lacks its end: a recording problem) and
  // never writes to what the number now names.
  bool flush(std::string* error);
  // How often the program took the descriptor away and the file was reopened.
  uint32_t reopened() const { return reopened_; }
  void close();
  // Drops the buffer and closes the descriptor without writing: a forked
  // child must never append to its parent's file.
  void close_without_flush();

  size_t buffered_bytes() const { return buffer_.size(); }
  // The file's size so far: written, and buffered to be.
  uint64_t file_bytes() const { return written_bytes_ + buffer_.size(); }

 private:
  void add_record(RecordType type, const void* payload, uint32_t size);
  // kStack and kPyStack share a layout: u32 id, u32 depth, u64 frame[depth].
  void add_frames(RecordType type, uint32_t id, const uint64_t* frames, uint32_t depth, uint32_t max_depth);
  // kThread and kString share a layout: u32 id, u32 len, char text[len].
  void add_numbered_text(RecordType type, uint32_t id, std::string_view text, uint32_t max_len);
  void* begin_record(RecordType type, uint32_t size);

  // The descriptor back while it is still our file, or reopened by path; -1 when lost.
  int usable_fd();

  OwnedFd file_;
  std::string path_;
  uint32_t reopened_ = 0;
  std::vector<unsigned char> buffer_;
  bool failed_ = false;
  uint64_t written_bytes_ = 0;  // an I/O error stopped the writer until the next open
};

}  // namespace syncscope
