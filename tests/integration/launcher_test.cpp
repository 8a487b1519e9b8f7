// `syncscope run`: environment, exit status, signals, and processes that
// never touch CUDA or die abruptly.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/integration/harness.h"

namespace syncscope::testing {
namespace {

// Waits until a trace under `dir` holds at least `bytes` (the recorder has
// flushed calls), so a test interrupts a program that is recording, however
// slowly a loaded machine started it. False after `limit`.
bool wait_for_trace(const std::string& dir, uintmax_t bytes, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".sstrace" && entry.file_size(ec) >= bytes) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST(Launcher, PassesTheChildsExitCodeThrough) {
  for (int code : {0, 3, 42}) {
    std::string dir = fresh_dir("exit");
    RunResult r =
        run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", example("exit_code"), std::to_string(code)},
            fake_runtime_env());
    EXPECT_EQ(r.exit_code, code) << r.err;
    auto traces = load_traces(dir + "/t");
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_TRUE(traces[0].complete) << traces[0].truncation;
    EXPECT_GT(traces[0].events.size(), 0u);
  }
}

TEST(Launcher, CommandNotFoundIs127) {
  std::string dir = fresh_dir("notfound");
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", "/nonexistent/program"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("/nonexistent/program"), std::string::npos) << r.err;
}

TEST(Launcher, ProcessWithoutCudaLeavesNoTrace) {
  std::string dir = fresh_dir("nocuda");
  RunResult r = run({syncscope_bin(), "run", "-o", dir + "/t", "--", "/bin/sh", "-c", "exit 0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto files = list_trace_files(dir + "/t");
  if (files.ok()) {
    EXPECT_TRUE(files->empty());
  }
}

TEST(Launcher, PrependsToAnExistingLdPreload) {
  std::string dir = fresh_dir("ldpreload");
  // libm is harmless to preload and certainly present.
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", "/usr/bin/env"},
                    {{"LD_PRELOAD", "libm.so.6"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string expected = "LD_PRELOAD=" + std::filesystem::canonical(preload_path()).string() + ":libm.so.6";
  EXPECT_NE(r.out.find(expected), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("SYNCSCOPE_OUTPUT_DIR="), std::string::npos);
}

TEST(Launcher, ForwardsSigtermAndReportsTheSignal) {
  std::string dir = fresh_dir("signal");
  Started s = start({syncscope_bin(), "run", "-o", dir + "/t", "--", example("long_loop"), "60"}, fake_runtime_env());
  // Let it record for a while (several flush intervals) once it records.
  EXPECT_TRUE(wait_for_trace(dir + "/t", 4096, std::chrono::seconds(30)));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  kill(s.pid, SIGTERM);
  RunResult r = finish(s, 30);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_GT(count_api(traces[0], ApiId::cudaStreamSynchronize), 0u);
  // The report was still printed after the child died.
  EXPECT_NE(r.out.find("cudaStreamSynchronize"), std::string::npos) << r.out;
}

TEST(Launcher, KilledTargetLeavesAReadableTrace) {
  std::string dir = fresh_dir("sigkill");
  auto env = fake_runtime_env();
  env["LD_PRELOAD"] = preload_path();
  env["SYNCSCOPE_OUTPUT_DIR"] = dir;
  env["SYNCSCOPE_FLUSH_MS"] = "20";
  Started s = start({example("long_loop"), "60"}, env);
  EXPECT_TRUE(wait_for_trace(dir, 4096, std::chrono::seconds(30)));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  kill(s.pid, SIGKILL);
  RunResult r = finish(s, 30);
  EXPECT_EQ(r.exit_code, 128 + SIGKILL);
  auto traces = load_traces(dir);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_FALSE(traces[0].complete);
  EXPECT_FALSE(traces[0].truncation.empty());
  EXPECT_GT(count_api(traces[0], ApiId::cudaStreamSynchronize), 10u);
  // Every stack an event names was written too.
  for (const Event& e : traces[0].events) {
    if (e.stack_id != 0) {
      EXPECT_TRUE(traces[0].stacks.count(e.stack_id)) << e.stack_id;
    }
  }
}

}  // namespace
}  // namespace syncscope::testing
