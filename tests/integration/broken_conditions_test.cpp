// Busy and broken conditions around the recorded program (docs/robustness.md):
// many threads calling CUDA at once, a storm of forked workers, an exec into
// a program that is not a CUDA one. In every case the program's own output
// and exit status are unchanged, and nothing recorded goes unaccounted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/integration/harness.h"
#include "trace/reader.h"

namespace syncscope::testing {
namespace {

size_t trace_files(const std::string& dir) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) n += entry.path().extension() == ".sstrace";
  return n;
}

TEST(BrokenConditions, SixtyFourThreadsAtOnceKeepEveryCall) {
  std::string dir = fresh_dir("threads64");
  RunResult r = run({syncscope_bin(), "run", "-o", dir + "/t", "--", example("thread_storm"), "64", "500", "0", "7"},
                    fake_runtime_env());
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.out.find("thread_storm: 64 threads x 500 launches, 0 children (0 failed)"), std::string::npos) << r.out;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_TRUE(traces[0].complete) << traces[0].truncation;
  EXPECT_EQ(traces[0].events_dropped, 0u);
  // Each thread: a stream created, 500 launches, a sync, the stream destroyed.
  EXPECT_EQ(traces[0].events.size(), 64u * 503u);
}

TEST(BrokenConditions, AForkStormOfWorkersIsEveryOneAccountedFor) {
  std::string dir = fresh_dir("forkstorm");
  std::string json = dir + "/r.json";
  RunResult r = run({syncscope_bin(), "run", "-o", dir + "/t", "--format", "text", "--format", "json=" + json, "--",
                     example("thread_storm"), "2", "50", "32", "0"},
                    fake_runtime_env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("32 children (0 failed)"), std::string::npos) << r.out;
  // Each worker called CUDA once and left with _exit: a trace each, every
  // one complete (the recorder's _exit hook writes its end; before it, most
  // ended before any flush wrote a call and were counted apart).
  EXPECT_EQ(trace_files(dir + "/t"), 33u);
  std::ifstream in(json);
  ASSERT_TRUE(in.good());
  nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["processes"].size(), 33u);
  EXPECT_EQ(j["processes_ended_unwritten"].get<size_t>(), 0u);
  EXPECT_EQ(j["processes_without_cuda"].get<size_t>(), 0u);
  for (const ProcessTrace& t : load_traces(dir + "/t")) EXPECT_TRUE(t.complete) << t.file << ": " << t.truncation;
}

TEST(BrokenConditions, AnExecIntoANonCudaProgramKeepsItsOutputAndStatus) {
  std::string dir = fresh_dir("exec");
  RunResult r = run({syncscope_bin(), "run", "-o", dir + "/t", "--", example("thread_storm"), "2", "50", "0", "0",
                     "exec", "/bin/sh", "-c", "echo exec-ed program; exit 5"},
                    fake_runtime_env());
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.out.find("thread_storm: 2 threads"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exec-ed program"), std::string::npos) << r.out;
  // The CUDA program's image is gone without an exit: its trace holds what
  // its flushes wrote (perhaps nothing yet) and says it has no end.
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_FALSE(traces[0].complete);
  if (traces[0].events.empty()) {
    EXPECT_NE(r.out.find("1 process ended before any of its calls were written"), std::string::npos) << r.out;
  } else {
    EXPECT_NE(r.out.find("trace incomplete"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace syncscope::testing
