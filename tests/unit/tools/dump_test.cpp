// `syncscope dump` as a user meets it, on traces written here with the
// trace writer (no CUDA involved) and on the checked-in sample of each trace
// version (tests/data/traces/): text and JSON, the optional sections, and the
// errors for paths that hold no readable trace.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/unit/tools/command_test_fixture.h"
#include "trace/api.h"
#include "trace/format.h"
#include "trace/writer.h"

namespace syncscope {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using Result = testing::CommandResult;
using testing::CommandTest;
using testing::slurp;

const std::string kSample = SYNCSCOPE_SOURCE_DIR "/tests/data/traces/v1/accumulation_loop.sstrace";

class Dump : public CommandTest {
 protected:
  Dump() : CommandTest("syncscope_dump") {}

  json run_json(const std::vector<std::string>& args, int expected_exit = 0) {
    Result r = run(args);
    EXPECT_EQ(r.exit_code, expected_exit) << r.err;
    json doc = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << r.out;
    return doc;
  }

  // A small program's trace: `steps` of launch, D2H read-back and sync on
  // thread 100 (the read-back's stack names a Python line), then one failed
  // cudaMalloc on thread 101. Returns the file's path.
  std::string write_trace(const std::string& dir, uint32_t pid, int steps = 40, bool end = true) {
    FileHeader h{};
    h.pid = pid;
    h.ppid = 1;
    h.start_monotonic_ns = 1'000'000;
    h.start_realtime_ns = 1'700'000'000'000'000'000ull;
    TraceWriter w;
    std::string error;
    EXPECT_TRUE(w.open(dir, h, &error)) << error;
    w.add_process_info("argv", "python3 train.py --lr 1");
    w.add_process_info("cwd", "/home/user/proj");
    w.add_process_info("cuda_runtime", "fake (simulated GPU)");
    w.add_thread(100, "main");
    w.add_thread(101, "worker");
    w.add_python_code(1, 10, "/home/user/proj/train.py", "step");
    w.add_python_code(2, 1, "/usr/lib/python3.11/threading.py", "run");
    uint64_t py[] = {(uint64_t{2} << 32) | 100, (uint64_t{1} << 32) | 42};
    w.add_python_stack(5, py, 2);
    uint64_t pcs[] = {0x1000, 0x2000};
    w.add_stack(5, pcs, 2);
    std::vector<Event> events;
    uint64_t now = 2'000'000;
    auto call = [&](ApiId api, uint64_t duration, uint32_t stack) -> Event& {
      Event e{};
      e.api = static_cast<uint16_t>(api);
      e.start_ns = now;
      e.end_ns = now + duration;
      e.stream = 0x100;
      e.stack_id = stack;
      e.tid = 100;
      e.device = 0;
      now += duration + 500;
      events.push_back(e);
      return events.back();
    };
    for (int i = 0; i < steps; ++i) {
      call(ApiId::__cudaLaunchKernel, 3000, 0).flags = kFlagAsync;
      Event& copy = call(ApiId::cudaMemcpyAsync, 2000, 5);
      copy.direction = static_cast<uint8_t>(Direction::kDeviceToHost);
      copy.host_mem = static_cast<uint8_t>(HostMem::kPinned);
      copy.bytes = 4;
      copy.flags = kFlagAsync;
      call(ApiId::cudaStreamSynchronize, 50'000, 5);
    }
    Event& failed = call(ApiId::cudaMalloc, 1000, 0);
    failed.tid = 101;
    failed.flags = kFlagError;
    failed.result = 2;
    failed.bytes = 1 << 20;
    w.add_events(events.data(), events.size());
    if (end) w.add_end(EndPayload{now, events.size(), 0, 0});
    EXPECT_TRUE(w.flush(&error)) << error;
    std::string file = w.path();
    w.close();
    return file;
  }
};

TEST_F(Dump, TextShowsHeaderCountsThreadsAndApis) {
  std::string file = write_trace(path("t"), 777);
  Result r = run({"dump", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string version = "trace version " + std::to_string(kTraceVersion) + ", pid 777, ppid 1";
  for (const char* want : {version.c_str(), "complete (clean shutdown)", "events dropped: 0",
                           "python3 train.py --lr 1", "121 events, 1 native stacks, 1 python stacks, 2 python code",
                           "cudaStreamSynchronize", "D2H/pinned:40", "errors:1", "main", "worker"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  EXPECT_EQ(r.out.find("events ("), std::string::npos) << "no event list without --events";
  EXPECT_EQ(r.out.find("\nstacks ("), std::string::npos);
  EXPECT_EQ(r.out.find("\nphases"), std::string::npos);
}

TEST_F(Dump, JsonHasEverySection) {
  std::string file = write_trace(path("t"), 777);
  json doc = run_json({"dump", "--json", "--events", "--stacks", "--phases", file});
  ASSERT_EQ(doc["traces"].size(), 1u) << doc.dump(1);
  EXPECT_TRUE(doc["errors"].empty());
  const json& t = doc["traces"][0];
  EXPECT_EQ(t["version"], kTraceVersion);
  EXPECT_EQ(t["pid"], 777);
  EXPECT_EQ(t["argv"], "python3 train.py --lr 1");
  EXPECT_EQ(t["cuda_runtime"], "fake (simulated GPU)");
  EXPECT_TRUE(t["complete"].get<bool>());
  EXPECT_EQ(t["counts"]["events"], 121);
  EXPECT_EQ(t["counts"]["python_code"], 2);
  EXPECT_EQ(t["apis"]["cudaStreamSynchronize"]["count"], 40);
  EXPECT_EQ(t["apis"]["cudaStreamSynchronize"]["host_ns"], 40 * 50'000);
  EXPECT_EQ(t["apis"]["cudaMemcpyAsync"]["copies"]["D2H/pinned"], 40);
  EXPECT_EQ(t["apis"]["cudaMemcpyAsync"]["bytes"], 160);
  EXPECT_EQ(t["apis"]["cudaMemcpyAsync"]["streams"]["256"], 40);
  EXPECT_EQ(t["apis"]["cudaMalloc"]["errors"], 1);
  EXPECT_EQ(t["apis"]["__cudaLaunchKernel"]["family"], "launch");
  ASSERT_EQ(t["threads"].size(), 2u);
  EXPECT_EQ(t["threads"][0]["tid"], 100);
  EXPECT_EQ(t["threads"][0]["name"], "main");
  EXPECT_EQ(t["threads"][0]["events"], 120);
  EXPECT_EQ(t["threads"][1]["name"], "worker");

  ASSERT_EQ(t["events"].size(), 121u);
  const json& copy = t["events"][1];
  EXPECT_EQ(copy["api"], "cudaMemcpyAsync");
  EXPECT_EQ(copy["start_ns"], 2'000'000 + 3500 - 1'000'000);  // relative to the recording's start
  EXPECT_EQ(copy["duration_ns"], 2000);
  EXPECT_EQ(copy["direction"], "D2H");
  EXPECT_EQ(copy["host_mem"], "pinned");
  EXPECT_EQ(copy["flags"], json::array({"async"}));
  // The innermost frame of the program's own code, past the library's.
  EXPECT_EQ(copy["python"]["file"], "/home/user/proj/train.py");
  EXPECT_EQ(copy["python"]["line"], 42);
  EXPECT_EQ(copy["python"]["function"], "step");
  EXPECT_FALSE(t["events"][0].contains("python"));
  EXPECT_EQ(t["events"][120]["flags"], json::array({"error=2"}));
  EXPECT_EQ(t["events"][120]["tid"], 101);

  ASSERT_EQ(t["stacks"].size(), 1u);
  EXPECT_EQ(t["stacks"][0]["id"], 5);
  EXPECT_EQ(t["stacks"][0]["events"], 80);
  EXPECT_EQ(t["stacks"][0]["native"].size(), 2u);
  ASSERT_EQ(t["stacks"][0]["python"].size(), 2u);
  EXPECT_EQ(t["stacks"][0]["python"][1]["line"], 42);
  EXPECT_TRUE(t["modules"].is_array());

  const json& phases = t["phases"];
  ASSERT_TRUE(phases["steps_detected"].get<bool>()) << phases.dump(1);
  ASSERT_GE(phases["phases"].size(), 1u);
  const json& train = phases["phases"][0];
  EXPECT_EQ(train["source"], "pattern");
  EXPECT_EQ(train["calls_per_step"], 3);
  EXPECT_GE(train["steps"].get<int>(), 35);
  uint64_t placed = phases["warmup_events"].get<uint64_t>() + phases["teardown_events"].get<uint64_t>() +
                    phases["steady_events_without_phase"].get<uint64_t>();
  for (const json& p : phases["phases"]) placed += p["events"].get<uint64_t>();
  EXPECT_EQ(placed, 121u) << "every event is in warm-up, a phase or teardown";
}

// Too short for steps: a time-based warm-up, the rest steady in no phase.
TEST_F(Dump, PhasesWithoutSteps) {
  std::string file = write_trace(path("t"), 778, 1);
  json doc = run_json({"dump", "--json", "--phases", file});
  const json& phases = doc["traces"][0]["phases"];
  EXPECT_FALSE(phases["steps_detected"].get<bool>()) << phases.dump(1);
  EXPECT_TRUE(phases["phases"].empty());
  EXPECT_EQ(phases["warmup_events"].get<uint64_t>() + phases["steady_events_without_phase"].get<uint64_t>() +
                phases["teardown_events"].get<uint64_t>(),
            4u);
  Result text = run({"dump", "--phases", file});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("no steps found"), std::string::npos) << text.out;
}

TEST_F(Dump, EventsTakeAnOptionalLimit) {
  std::string file = write_trace(path("t"), 777);
  json limited = run_json({"dump", "--json", "--events", "5", file});
  EXPECT_EQ(limited["traces"][0]["events"].size(), 5u);
  // The path may come right after a bare --events.
  json all = run_json({"dump", "--json", "--events", file});
  EXPECT_EQ(all["traces"][0]["events"].size(), 121u);
  json none = run_json({"dump", "--json", file});
  EXPECT_FALSE(none["traces"][0].contains("events"));

  Result text = run({"dump", file, "--events", "3", "--stacks", "--phases"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* want :
       {"events (3 of 121", "cudaMemcpyAsync", "D2H/pinned", "async", "#5", "train.py:42 step", "stacks (1;",
        "py /home/user/proj/train.py:42 step", "\nphases", "calls per step", "warm-up", "teardown"}) {
    EXPECT_NE(text.out.find(want), std::string::npos) << want << "\n" << text.out;
  }
}

TEST_F(Dump, ADirectoryOfSeveralTraces) {
  write_trace(path("t"), 11);
  write_trace(path("t"), 12, 5);
  std::ofstream(path("t/processes-without-cuda.log")) << "13 1 /bin/sh\n";
  json doc = run_json({"dump", "--json", path("t")});
  ASSERT_EQ(doc["traces"].size(), 2u);
  EXPECT_EQ(doc["traces"][0]["pid"], 11);
  EXPECT_EQ(doc["traces"][1]["pid"], 12);
  EXPECT_EQ(doc["traces"][1]["counts"]["events"], 16);
  EXPECT_EQ(doc["processes_without_cuda"], 1);
  Result text = run({"dump", path("t")});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("pid 11,"), std::string::npos);
  EXPECT_NE(text.out.find("pid 12,"), std::string::npos);
  EXPECT_NE(text.out.find("never called CUDA"), std::string::npos);
}

TEST_F(Dump, AnIncompleteTraceIsShownWithWhy) {
  std::string file = write_trace(path("t"), 21, 40, /*end=*/false);
  // Cut inside the last record, as a killed process leaves it.
  fs::resize_file(file, fs::file_size(file) - 10);
  Result r = run({"dump", file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("INCOMPLETE: file ends inside a record"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("incomplete"), std::string::npos) << r.err;
  json doc = run_json({"dump", "--json", file});
  EXPECT_FALSE(doc["traces"][0]["complete"].get<bool>());
  EXPECT_NE(doc["traces"][0]["truncation"].get<std::string>().find("file ends inside a record"), std::string::npos);
}

TEST_F(Dump, PathsWithoutAReadableTraceExitOne) {
  Result missing = run({"dump", path("nope")});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no such trace file or directory"), std::string::npos) << missing.err;
  EXPECT_TRUE(missing.out.empty());

  fs::create_directories(path("empty"));
  Result empty = run({"dump", path("empty")});
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.err.find("no syncscope traces"), std::string::npos) << empty.err;

  std::ofstream(path("foreign.sstrace")) << "garbage, not a trace";
  Result foreign = run({"dump", path("foreign.sstrace")});
  EXPECT_EQ(foreign.exit_code, 1);
  EXPECT_NE(foreign.err.find("not a syncscope trace"), std::string::npos) << foreign.err;

  std::string good = write_trace(path("v"), 31);
  std::string bytes = slurp(good);
  uint32_t version = 99;
  std::memcpy(bytes.data() + 8, &version, sizeof(version));
  std::ofstream(path("future.sstrace"), std::ios::binary) << bytes;
  Result future = run({"dump", path("future.sstrace")});
  EXPECT_EQ(future.exit_code, 1);
  EXPECT_NE(future.err.find("unsupported trace version 99"), std::string::npos) << future.err;

  std::ofstream(path("cut.sstrace"), std::ios::binary) << slurp(good).substr(0, 30);
  Result cut = run({"dump", path("cut.sstrace")});
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_NE(cut.err.find("ends inside the trace header"), std::string::npos) << cut.err;

  EXPECT_EQ(run({"dump"}).exit_code, 2) << "usage error";
}

TEST_F(Dump, ReadableTracesOfADirectoryArePrintedBesideTheUnreadable) {
  write_trace(path("t"), 41);
  std::ofstream(path("t/zz.sstrace")) << "garbage";
  Result text = run({"dump", path("t")});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("pid 41,"), std::string::npos) << text.out;
  EXPECT_NE(text.err.find("zz.sstrace"), std::string::npos) << text.err;
  json doc = run_json({"dump", "--json", path("t")}, 1);
  EXPECT_EQ(doc["traces"].size(), 1u);
  ASSERT_EQ(doc["errors"].size(), 1u);
  EXPECT_NE(doc["errors"][0]["error"].get<std::string>().find("not a syncscope trace"), std::string::npos);
}

// The checked-in sample of version 1 (docs/trace-format.md): dump and report
// read it as a user would.
TEST_F(Dump, DumpsTheVersion1Sample) {
  json doc = run_json({"dump", "--json", "--events", "--stacks", "--phases", kSample});
  ASSERT_EQ(doc["traces"].size(), 1u);
  const json& t = doc["traces"][0];
  EXPECT_EQ(t["version"], 1);
  EXPECT_TRUE(t["complete"].get<bool>());
  EXPECT_EQ(t["cuda_runtime"], "fake (simulated GPU)");
  EXPECT_EQ(t["events"].size(), t["counts"]["events"].get<size_t>());
  EXPECT_EQ(t["apis"]["syncscope_optimizer_step"]["count"], 12);
  // The read-back's sync names its Python line.
  bool sync_at_line_26 = false;
  for (const json& e : t["events"]) {
    if (e["api"] == "cudaStreamSynchronize" && e.contains("python") && e["python"]["line"] == 26 &&
        e["python"]["function"] == "read_back") {
      sync_at_line_26 = true;
    }
  }
  EXPECT_TRUE(sync_at_line_26);
  EXPECT_FALSE(t["stacks"].empty());
  ASSERT_FALSE(t["phases"]["phases"].empty());
  EXPECT_EQ(t["phases"]["phases"][0]["source"], "optimizer-step");

  Result text = run({"dump", "--events", "20", "--stacks", "--phases", kSample});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("accumulation_loop.py:26 read_back"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("optimizer-step"), std::string::npos) << text.out;
}

// `report --between START,END` on one trace file (syncscope.watch() under
// `syncscope run`): only the calls that began in the window are reported,
// from a trace still being written (no end record).
TEST_F(Dump, ReportBetweenKeepsOnlyTheWindow) {
  std::string file = write_trace(path("t"), 777, 40, /*end=*/false);
  // write_trace's steps: launch 3000 + copy 2000 + sync 50000 ns, each call
  // followed by 500 ns, from 2,000,000.
  const uint64_t step = 3500 + 2500 + 50'500, first = 2'000'000;
  auto syncs = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"report", file, "--format", "json=" + path("f.json"), "--warmup", "0",
                                     "--warmup-steps", "0", "--include-warmup"};
    args.insert(args.end(), extra.begin(), extra.end());
    Result r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    json doc = json::parse(slurp(path("f.json")), nullptr, false);
    EXPECT_FALSE(doc.is_discarded());
    std::vector<uint64_t> counts;
    if (doc.is_discarded() || doc["processes"].empty()) return counts;
    for (const json& f : doc["processes"][0]["findings"]) {
      if (f["category"] == "hidden-sync") counts.push_back(f["count"].get<uint64_t>());
    }
    return counts;
  };
  EXPECT_EQ(syncs({}), std::vector<uint64_t>{40}) << "the whole trace";
  // Steps 10 to 19: from the start of step 10 to just before step 20.
  std::string window = std::to_string(first + 10 * step) + "," + std::to_string(first + 20 * step - 1);
  EXPECT_EQ(syncs({"--between", window}), std::vector<uint64_t>{10});
  EXPECT_EQ(syncs({"--between", "0,1000"}), std::vector<uint64_t>{}) << "a window before everything";

  for (const char* bad : {"5", "9,3", "a,b", ",7", "7,", "1,2,3"}) {
    Result r = run({"report", file, "--between", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--between"), std::string::npos) << bad << ": " << r.err;
  }
}

TEST_F(Dump, ReportsTheVersion1Sample) {
  Result r = run({"report", SYNCSCOPE_SOURCE_DIR "/tests/data/traces/v1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SIMULATED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("accumulation_loop.py:26"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace syncscope
