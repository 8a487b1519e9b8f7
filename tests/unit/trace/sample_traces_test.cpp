// The checked-in sample trace of each trace-format version
// (tests/data/traces/v<N>/, docs/trace-format.md "Samples of each version"),
// read with today's reader. When kTraceVersion is bumped, keep the older
// samples and their tests (changed to what the new reader does with them)
// and add the new version's: see the docs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "trace/api.h"
#include "trace/format.h"
#include "trace/reader.h"

namespace syncscope {
namespace {

const std::string kSamples = SYNCSCOPE_SOURCE_DIR "/tests/data/traces";

std::map<std::string, size_t> api_counts(const ProcessTrace& t) {
  std::map<std::string, size_t> counts;
  for (const Event& e : t.events) counts[std::string(api_name(e.api))]++;
  return counts;
}

// The user's innermost Python line of a stack: "file-name:line function".
std::string python_site(const ProcessTrace& t, uint32_t stack_id) {
  auto it = t.python_stacks.find(stack_id);
  if (it == t.python_stacks.end() || it->second.empty()) return "";
  const PythonFrame& frame = it->second.front();
  auto code = t.python_code.find(frame.code_id);
  if (code == t.python_code.end()) return "?";
  std::string file = code->second.file.substr(code->second.file.rfind('/') + 1);
  return file + ":" + std::to_string(frame.line) + " " + code->second.function;
}

// The calls accumulation_loop.py 12 makes, in every version's sample.
std::map<std::string, size_t> accumulation_loop_apis() {
  return {{"cudaStreamCreateWithFlags", 1}, {"cudaMalloc", 1},         {"cudaMallocHost", 1},
          {"cudaMemsetAsync", 72},          {"cudaMemcpyAsync", 12},   {"cudaStreamSynchronize", 36},
          {"syncscope_optimizer_step", 12}, {"syncscope_gil_wait", 12}};
}

TEST(TraceSamples, EveryVersionHasASample) {
  for (uint32_t version = 1; version <= kTraceVersion; ++version) {
    auto files = list_trace_files(kSamples + "/v" + std::to_string(version));
    ASSERT_TRUE(files.ok()) << files.status() << ": record it with scripts/make-sample-trace.py (docs/trace-format.md)";
    EXPECT_FALSE(files->empty()) << "no sample of trace version " << version;
  }
}

// tests/data/traces/v1/accumulation_loop.sstrace: accumulation_loop.py 12
// with the frameless worker, recorded against the fake runtime.
TEST(TraceSamples, Version1ReadsWithItsContents) {
  auto read = read_trace_file(kSamples + "/v1/accumulation_loop.sstrace");
  ASSERT_TRUE(read.ok()) << read.status();
  const ProcessTrace& t = *read;

  EXPECT_EQ(t.header.version, 1u);
  EXPECT_EQ(t.header.header_size, 64u);
  EXPECT_EQ(t.header.event_size, 64u);
  EXPECT_EQ(t.header.pid, 6128u);
  EXPECT_EQ(t.header.ppid, 6127u);
  EXPECT_EQ(t.header.flags, static_cast<uint32_t>(kFileClockTsc));
  EXPECT_TRUE(t.complete) << t.truncation;
  EXPECT_EQ(t.truncation, "");
  EXPECT_EQ(t.events_dropped, 0u);
  EXPECT_EQ(t.stacks_dropped, 0u);

  // Events: counts per API, in time order, all within the recording.
  ASSERT_EQ(t.events.size(), 147u);
  EXPECT_EQ(api_counts(t), accumulation_loop_apis());
  EXPECT_TRUE(std::is_sorted(t.events.begin(), t.events.end(),
                             [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; }));
  for (const Event& e : t.events) {
    ASSERT_GE(e.start_ns, t.header.start_monotonic_ns);
    ASSERT_GE(e.end_ns, e.start_ns);
  }
  size_t d2h_pinned = 0;
  for (const Event& e : t.events) {
    d2h_pinned += e.direction == static_cast<uint8_t>(Direction::kDeviceToHost) &&
                  e.host_mem == static_cast<uint8_t>(HostMem::kPinned) && e.bytes == 4;
  }
  EXPECT_EQ(d2h_pinned, 12u);

  // Tables: native and Python stacks, Python code, modules, threads.
  EXPECT_EQ(t.stacks.size(), 9u);
  EXPECT_EQ(t.python_stacks.size(), 7u);
  EXPECT_EQ(t.python_code.size(), 5u);
  EXPECT_EQ(t.modules.size(), 27u);
  ASSERT_EQ(t.thread_names.count(6128), 1u);
  EXPECT_EQ(t.thread_names.at(6128), "python3");

  // A stack: the read-back's sync, with its native frames (each inside a
  // recorded module) and its Python frames.
  const Event* sync = nullptr;
  for (const Event& e : t.events) {
    if (e.api == static_cast<uint16_t>(ApiId::cudaStreamSynchronize) && e.tid == 6128) {
      sync = &e;
      break;
    }
  }
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->stack_id, 2090u);
  ASSERT_EQ(t.stacks.count(sync->stack_id), 1u);
  const std::vector<uint64_t>& pcs = t.stacks.at(sync->stack_id);
  EXPECT_EQ(pcs.size(), 16u);
  for (uint64_t pc : pcs) EXPECT_NE(t.module_for(pc), nullptr) << std::hex << pc;
  EXPECT_EQ(python_site(t, sync->stack_id), "accumulation_loop.py:26 read_back");
  ASSERT_EQ(t.python_stacks.at(sync->stack_id).size(), 3u);

  // The optimizer-step markers carry the step's line beneath syncscope's hook.
  for (const Event& e : t.events) {
    if (e.api != static_cast<uint16_t>(ApiId::syncscope_optimizer_step)) continue;
    const std::vector<PythonFrame>& frames = t.python_stacks.at(e.stack_id);
    ASSERT_EQ(frames.size(), 4u);
    EXPECT_EQ(frames[2].line, 44u);
  }

  // Python code as the recorder published it (paths rewritten by the script).
  bool read_back = false;
  for (const auto& [id, code] : t.python_code) {
    if (code.function != "read_back") continue;
    read_back = true;
    EXPECT_EQ(code.file, "/src/syncscope/tests/integration/python/accumulation_loop.py");
    EXPECT_EQ(code.first_line, 24u);
  }
  EXPECT_TRUE(read_back);

  // Process facts.
  EXPECT_EQ(t.info("argv"), "/usr/bin/python3 accumulation_loop.py 12 /src/syncscope/build/lib/libframeless_worker.so");
  EXPECT_EQ(t.info("argv1"), "accumulation_loop.py");
  EXPECT_EQ(t.info("cwd"), "/src/syncscope/tests/integration/python");
  EXPECT_EQ(t.info("hostname"), "sample-host");
  EXPECT_EQ(t.info("cuda_runtime"), "fake (simulated GPU)");
  EXPECT_EQ(t.info("clock"), "tsc");
  EXPECT_EQ(t.info("unwinder"), "libunwind");
  EXPECT_EQ(t.info("syncscope_version"), "0.1.0");
}

// tests/data/traces/v2/accumulation_loop.sstrace: the same program recorded
// by the version 2 recorder (launches aggregated by default: this program
// makes none, so its events are all plain ones).
TEST(TraceSamples, Version2ReadsWithItsContents) {
  auto read = read_trace_file(kSamples + "/v2/accumulation_loop.sstrace");
  ASSERT_TRUE(read.ok()) << read.status();
  const ProcessTrace& t = *read;
  EXPECT_EQ(t.header.version, 2u);
  EXPECT_EQ(t.header.pid, 12802u);
  EXPECT_TRUE(t.complete) << t.truncation;
  EXPECT_EQ(t.events_dropped, 0u);
  EXPECT_EQ(t.events_unwritten_at_exit, 0u);
  EXPECT_EQ(t.info("trace.detail"), "aggregated");
  EXPECT_EQ(t.launch_runs, 0u);
  ASSERT_EQ(t.events.size(), 147u);
  EXPECT_EQ(api_counts(t), accumulation_loop_apis());
  size_t read_backs = 0;
  for (const Event& e : t.events) {
    if (e.api == static_cast<uint16_t>(ApiId::cudaStreamSynchronize) && e.tid == 12802) {
      EXPECT_EQ(python_site(t, e.stack_id), "accumulation_loop.py:26 read_back");
      ++read_backs;
    }
  }
  EXPECT_EQ(read_backs, 12u);
  EXPECT_EQ(t.modules.size(), 27u);
}

}  // namespace
}  // namespace syncscope
