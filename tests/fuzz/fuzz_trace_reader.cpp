// The trace reader (trace/reader.h) on arbitrary bytes, read from memory
// through read_trace_bytes, the same code read_trace_file runs after
// reading the file. Any input must give an error or a trace, never a
// crash, and a trace must keep the reader's promises to the analysis:
// events and modules in order, every GPU record joined to an event that
// exists or to none. The same bytes are then read as a file in windows
// (trace/trace_stream.h, through a memfd): every event the whole read gave
// comes out once, each window in start order, with the same truncation;
// and a stretch of it (report --between) keeps its order and joins.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_check.h"
#include "trace/reader.h"
#include "trace/time_window.h"
#include "trace/trace_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace syncscope;
  absl::StatusOr<ProcessTrace> read =
      read_trace_bytes(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.sstrace");
  if (!read.ok()) {
    FUZZ_CHECK(!read.status().message().empty());
    return 0;
  }
  const ProcessTrace& trace = *read;
  FUZZ_CHECK(trace.complete == trace.truncation.empty());
  FUZZ_CHECK(std::is_sorted(trace.events.begin(), trace.events.end(),
                            [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; }));
  FUZZ_CHECK(std::is_sorted(trace.modules.begin(), trace.modules.end(),
                            [](const Module& a, const Module& b) { return a.start < b.start; }));
  for (const GpuActivity& a : trace.gpu_activity) {
    FUZZ_CHECK(a.event_index >= -1 && a.event_index < static_cast<int64_t>(trace.events.size()));
    (void)trace.gpu_name(a);
  }
  for (const auto& [id, frames] : trace.stacks) {
    FUZZ_CHECK(frames.size() <= kMaxStackDepth);
    for (uint64_t pc : frames) {
      const Module* m = trace.module_for(pc);
      FUZZ_CHECK(m == nullptr || (m->start <= pc && pc < m->end));
    }
  }
  for (const auto& [id, frames] : trace.python_stacks) FUZZ_CHECK(frames.size() <= kMaxPythonDepth);
  (void)trace.info("argv");
  // A stretch of it (report --between): still sorted, every GPU record
  // joined to a kept event or to none.
  if (!trace.events.empty()) {
    ProcessTrace part = trace;
    const uint64_t first = trace.events.front().start_ns, last = trace.events.back().start_ns;
    restrict_to_stretch(part, first + (last - first) / 3, last - (last - first) / 3);
    FUZZ_CHECK(part.events.size() <= trace.events.size());
    FUZZ_CHECK(std::is_sorted(part.events.begin(), part.events.end(),
                              [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; }));
    for (const GpuActivity& a : part.gpu_activity) {
      FUZZ_CHECK(a.event_index >= -1 && a.event_index < static_cast<int64_t>(part.events.size()));
    }
  }

  const int fd = memfd_create("fuzz.sstrace", MFD_CLOEXEC);
  if (fd < 0) return 0;
  size_t written = 0;
  while (written < size) {
    const ssize_t n = ::write(fd, data + written, size - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  if (written == size) {
    absl::StatusOr<std::unique_ptr<TraceStream>> stream =
        TraceStream::open("/proc/self/fd/" + std::to_string(fd), {});
    FUZZ_CHECK(stream.ok());
    std::vector<Event> window;
    size_t events = 0;
    while ((*stream)->next(7, &window)) {
      FUZZ_CHECK(!window.empty() && window.size() <= 7);
      FUZZ_CHECK(std::is_sorted(window.begin(), window.end(),
                                [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; }));
      events += window.size();
    }
    FUZZ_CHECK(events == trace.events.size());
    FUZZ_CHECK((*stream)->tables().truncation == trace.truncation);
  }
  ::close(fd);
  return 0;
}
