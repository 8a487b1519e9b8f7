// A gate never passes on what it could not see: when the recorder cannot
// write its trace (read-only or full disk, the directory deleted mid-run) or
// loses events, `syncscope run --fail-on all` exits 4 naming the problem,
// and the JSON report is still written with the problem listed. Every fault
// here is real for the recorded command, root or not (CI runs as root).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/harness.h"
#include "trace/format.h"

namespace syncscope::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kIncomplete = 4;
constexpr int kGateFailed = 3;

RunResult syncscope(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  args.insert(args.begin(), syncscope_bin());
  std::map<std::string, std::string> merged = fake_runtime_env();
  merged.insert(env.begin(), env.end());
  return run(args, merged);
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path << " was not written";
  if (!in.good()) return nlohmann::json::object();
  return nlohmann::json::parse(in, nullptr, false);
}

// The problems of a findings JSON, as "kind" strings; the recording must be
// marked incomplete and the gate failed.
std::vector<std::string> problem_kinds(const nlohmann::json& report) {
  std::vector<std::string> kinds;
  EXPECT_EQ(report["recording"]["complete"], false) << report.dump(2);
  EXPECT_EQ(report["policy"]["gate"]["failed"], true);
  EXPECT_EQ(report["policy"]["gate"]["recording_incomplete"], true);
  for (const auto& p : report["recording"]["problems"]) {
    kinds.push_back(p["kind"].get<std::string>());
    EXPECT_FALSE(p["message"].get<std::string>().empty());
  }
  return kinds;
}

bool has(const std::vector<std::string>& kinds, const std::string& kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

TEST(RecordingProblems, ReadOnlyOutputDirectory) {
  std::string dir = fresh_dir("read-only");
  std::string traces = dir + "/t";
  fs::create_directories(traces);
  // The launcher can write there (its check before the run passes); the
  // command, started through make_unwritable, cannot.
  RunResult r = syncscope({"run", "-o", traces, "--fail-on", "all", "--format", "json=" + dir + "/r.json", "--",
                           SYNCSCOPE_MAKE_UNWRITABLE, traces, "--", example("hidden_sync_loop"), "60"});
  EXPECT_EQ(r.exit_code, kIncomplete) << r.err;
  EXPECT_NE(r.err.find("recorded nothing: cannot create " + traces), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gate failed: the recording is incomplete"), std::string::npos) << r.err;
  // The report's first line, right after the command's own output.
  EXPECT_NE(r.out.find("(sum 0.0)\nRECORDING INCOMPLETE: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gate: FAIL"), std::string::npos) << r.out;
  nlohmann::json json = read_json(dir + "/r.json");
  EXPECT_TRUE(has(problem_kinds(json), "trace-open-failed")) << json.dump(2);
  EXPECT_GT(json["recording"]["problems"][0]["pid"].get<int>(), 0);
  EXPECT_TRUE(json["processes"].empty());

  // A parent that closes the inherited descriptor before exec (Python's
  // subprocess does by default): the recorder reopens the launcher's.
  std::string closed = dir + "/t3";
  fs::create_directories(closed);
  std::string close_then_exec = "fd=${SYNCSCOPE_STATUS_FD%%:*}; eval \"exec $fd>&-\"; exec \"$0\" \"$@\"";
  r = syncscope({"run", "-o", closed, "--fail-on", "all", "--", "/bin/sh", "-c", close_then_exec,
                 SYNCSCOPE_MAKE_UNWRITABLE, closed, "--", example("hidden_sync_loop"), "60"});
  EXPECT_EQ(r.exit_code, kIncomplete) << r.err;
  EXPECT_NE(r.err.find("recorded nothing: cannot create " + closed), std::string::npos) << r.err;

  // The command's own failure still wins, and the problem is still told.
  std::string again = dir + "/t2";
  fs::create_directories(again);
  r = syncscope({"run", "-o", again, "--fail-on", "all", "--", SYNCSCOPE_MAKE_UNWRITABLE, again, "--",
                 example("exit_code"), "42"});
  EXPECT_EQ(r.exit_code, 42) << r.err;
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
}

TEST(RecordingProblems, FullDisk) {
  std::string dir = fs::canonical(fresh_dir("full-disk")).string();
  std::string traces = dir + "/t";
  // The header fits, the first flush does not: the write is cut short, then ENOSPC.
  std::string with_shim = "LD_PRELOAD=\"$LD_PRELOAD:" + std::string(SYNCSCOPE_FULL_DISK_SHIM) + "\" exec \"$0\" \"$@\"";
  RunResult r = syncscope({"run", "-o", traces, "--fail-on", "all", "--format", "json=" + dir + "/r.json", "--",
                           "/bin/sh", "-c", with_shim, example("hidden_sync_loop"), "60"},
                          {{"SYNCSCOPE_TEST_FULL_DIR", traces}, {"SYNCSCOPE_TEST_FULL_AFTER", "1000"}});
  EXPECT_EQ(r.exit_code, kIncomplete) << r.err;
  EXPECT_NE(r.err.find("its trace could not be written: " + traces), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  // The recorder said it once inside the command, and kept the command running.
  EXPECT_NE(r.out.find("hidden_sync_loop: 60 steps"), std::string::npos) << r.out;
  EXPECT_TRUE(has(problem_kinds(read_json(dir + "/r.json")), "write-failed"));
  // The cut-short trace is still read, up to where the disk filled.
  EXPECT_EQ(load_traces(traces).size(), 1u);
}

TEST(RecordingProblems, DirectoryDeletedDuringTheRun) {
  std::string dir = fresh_dir("deleted");
  std::string traces = dir + "/t";
  Started s = start({syncscope_bin(), "run", "-o", traces, "--flush-ms", "20", "--fail-on", "all", "--format",
                     "json=" + dir + "/r.json", "--", example("long_loop"), "3"},
                    fake_runtime_env());
  // After the first flush past the header, the whole directory goes.
  bool flushed = false;
  for (int i = 0; i < 300 && !flushed; ++i) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(traces, ec)) {
      if (entry.path().extension() == kTraceFileSuffix && entry.file_size(ec) > sizeof(FileHeader)) flushed = true;
    }
    if (!flushed) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(flushed) << "no trace was flushed within 3 s";
  fs::remove_all(traces);
  RunResult r = finish(s);
  EXPECT_EQ(r.exit_code, kIncomplete) << r.err;
  EXPECT_NE(r.err.find("the output directory " + traces + " was deleted during the run"), std::string::npos) << r.err;
  std::vector<std::string> kinds = problem_kinds(read_json(dir + "/r.json"));
  EXPECT_TRUE(has(kinds, "directory-removed"));
  // The recorder noticed too (its trace lost its name) and stopped writing.
  EXPECT_TRUE(has(kinds, "trace-removed"));
  EXPECT_NE(r.err.find("was deleted during the run; recording stopped"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(traces));  // nothing recreated it
}

TEST(RecordingProblems, DroppedEvents) {
  std::string dir = fresh_dir("dropped");
  // A 64-event ring drained once a minute: a burst of 800 calls overflows it.
  RunResult r = syncscope({"run", "-o", dir + "/t", "--ring-events", "64", "--flush-ms", "60000", "--fail-on", "all",
                           "--format", "json=" + dir + "/r.json", "--", example("hidden_sync_loop"), "200"});
  // 4, not 3: the findings themselves fail the gate, but on partial data.
  EXPECT_EQ(r.exit_code, kIncomplete) << r.err;
  EXPECT_NE(r.err.find("events (a thread's ring was full; raise --ring-events)"), std::string::npos) << r.err;
  nlohmann::json json = read_json(dir + "/r.json");
  EXPECT_TRUE(has(problem_kinds(json), "events-dropped"));
  ASSERT_EQ(json["processes"].size(), 1u);
  EXPECT_GT(json["processes"][0]["dropped_events"].get<uint64_t>(), 0u);
  EXPECT_EQ(json["recording"]["problems"][0]["detail"],
            std::to_string(json["processes"][0]["dropped_events"].get<uint64_t>()));

  // Without a gate: a warning, and the command's status (0).
  r = syncscope({"run", "-o", dir + "/t2", "--ring-events", "64", "--flush-ms", "60000", "--",
                 example("hidden_sync_loop"), "200"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: the recording is incomplete"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("RECORDING INCOMPLETE"), std::string::npos) << r.out;
  // The same recording judged again later is just as blind.
  r = syncscope({"report", dir + "/t2", "--fail-on", "pageable-copy"});
  EXPECT_EQ(r.exit_code, kIncomplete) << r.err;
}

TEST(RecordingProblems, UnusableOutputDirectoryStopsBeforeTheCommandRuns) {
  std::string dir = fresh_dir("unusable");
  std::ofstream(dir + "/file") << "a file, not a directory";
  std::string marker = dir + "/ran";
  std::vector<std::string> command = {"--", "/bin/sh", "-c", "touch '" + marker + "'"};
  std::vector<std::string> args = {"run", "-o",       dir + "/file/t",          "--fail-on",
                                   "all", "--format", "json=" + dir + "/r.json"};
  args.insert(args.end(), command.begin(), command.end());
  RunResult r = syncscope(args);
  EXPECT_EQ(r.exit_code, kIncomplete) << r.err;
  EXPECT_NE(r.err.find("cannot create " + dir + "/file/t"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("was not run"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_TRUE(has(problem_kinds(read_json(dir + "/r.json")), "output-dir-unusable"));
  // Without a gate it is syncscope's own error, as ever.
  args = {"run", "-o", dir + "/file/t"};
  args.insert(args.end(), command.begin(), command.end());
  r = syncscope(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(marker));
}

// A target that syncs and leaves with os._exit(0): the recorder wrote no
// end record (and maybe nothing at all). The gate said "no CUDA calls were
// recorded", pass, exit 0; it is blind.
TEST(RecordingProblems, ATargetThatLeavesWithOsExitNeverPasses) {
  const std::string script = SYNCSCOPE_SOURCE_DIR "/tests/integration/python/exit_without_flush.py";
  // os._exit: no atexit handler runs, but the recorder's _exit hook writes
  // the trace's end, so the gate judges the 500 syncs (it passed, exit 0,
  // before the hook and the end check).
  std::string dir = fresh_dir("os-exit");
  RunResult r = syncscope({"run", "-o", dir + "/t", "--fail-on", "hidden-sync", "--format", "json=" + dir + "/r.json",
                           "--", "/usr/bin/env", "python3", script, "500", "os_exit"});
  EXPECT_EQ(r.exit_code, kGateFailed) << r.err;
  nlohmann::json json = read_json(dir + "/r.json");
  EXPECT_EQ(json["recording"]["complete"], true) << json.dump(1);
  EXPECT_EQ(json["policy"]["gate"]["failed"], true);
  // exit_group(2) from the kernel's table: nothing can flush; the trace lacks
  // its end and the gate fails closed.
  dir = fresh_dir("exit-group");
  r = syncscope({"run", "-o", dir + "/t", "--fail-on", "hidden-sync", "--format", "json=" + dir + "/r.json", "--",
                 "/usr/bin/env", "python3", script, "500", "syscall"});
  EXPECT_EQ(r.exit_code, kIncomplete) << r.err;
  EXPECT_NE(r.err.find("did not end cleanly"), std::string::npos) << r.err;
  EXPECT_TRUE(has(problem_kinds(read_json(dir + "/r.json")), "trace-incomplete"));
}

// A trace cut short (a disk full at the last write, a copy interrupted) or
// damaged, judged later by `syncscope report` under a gate: exit 4.
TEST(RecordingProblems, ATruncatedOrCorruptTraceUnderAGateExits4) {
  std::string dir = fresh_dir("truncated");
  RunResult r = syncscope({"run", "--no-report", "-o", dir + "/t", "--", example("hidden_sync_loop"), "60"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string trace;
  for (const auto& entry : fs::directory_iterator(dir + "/t")) {
    if (entry.path().extension() == ".sstrace") trace = entry.path();
  }
  ASSERT_FALSE(trace.empty());
  const auto size = fs::file_size(trace);
  std::vector<std::string> gate = {"--fail-on", "hidden-sync", "--budget", "hidden-sync=5/step"};
  std::vector<std::string> args = {"report", dir + "/t", "--format", "json=" + dir + "/r.json"};
  args.insert(args.end(), gate.begin(), gate.end());
  r = syncscope(args);
  EXPECT_EQ(r.exit_code, 0) << "the whole trace passes this budget: " << r.err;

  fs::resize_file(trace, size - 7);  // inside the end record
  r = syncscope(args);
  EXPECT_EQ(r.exit_code, kIncomplete) << r.err;
  EXPECT_TRUE(has(problem_kinds(read_json(dir + "/r.json")), "trace-incomplete"));

  fs::resize_file(trace, size / 2);
  {
    std::fstream f(trace, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 4));
    const char garbage[16] = {'\x7f', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f',
                              '\x7f', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f'};
    f.write(garbage, sizeof(garbage));
  }
  r = syncscope(args);
  EXPECT_EQ(r.exit_code, kIncomplete) << r.err;
}

TEST(RecordingProblems, ACleanRunHasNone) {
  std::string dir = fresh_dir("clean");
  RunResult r = syncscope({"run", "-o", dir + "/t", "--fail-on", "pageable-copy", "--format", "json=" + dir + "/r.json",
                           "--", example("hidden_sync_loop"), "60"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("RECORDING INCOMPLETE"), std::string::npos) << r.out;
  nlohmann::json json = read_json(dir + "/r.json");
  EXPECT_EQ(json["recording"]["complete"], true);
  EXPECT_TRUE(json["recording"]["problems"].empty());
  EXPECT_EQ(json["policy"]["gate"]["failed"], false);
}

}  // namespace
}  // namespace syncscope::testing
