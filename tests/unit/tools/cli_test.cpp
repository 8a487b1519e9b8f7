// The syncscope executable as a user meets it: exit codes, usage errors, the
// launcher's shell-like codes, signal forwarding, report on bad directories.
// Needs no CUDA: the commands it runs make no CUDA calls.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/unit/tools/command_test_fixture.h"
#include "trace/format.h"

namespace syncscope {
namespace {

namespace fs = std::filesystem;

using Result = testing::CommandResult;
using testing::CommandTest;

class Cli : public CommandTest {
 protected:
  Cli() : CommandTest("syncscope_cli", SYNCSCOPE_PRELOAD_FILE) {}

  // A minimal valid trace: a header and a clean end, no events.
  void write_empty_trace(const std::string& file) {
    FileHeader h{};
    std::memcpy(h.magic, kTraceMagic, sizeof(h.magic));
    h.version = kTraceVersion;
    h.header_size = sizeof(FileHeader);
    h.pid = 4242;
    h.event_size = 64;
    RecordHeader r{static_cast<uint32_t>(RecordType::kEnd), sizeof(EndPayload)};
    EndPayload end{};
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&h), sizeof(h));
    out.write(reinterpret_cast<const char*>(&r), sizeof(r));
    out.write(reinterpret_cast<const char*>(&end), sizeof(end));
  }
};

TEST_F(Cli, VersionAndHelp) {
  Result v = run({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("syncscope "), std::string::npos) << v.out;
  Result h = run({"--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("run"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("report"), std::string::npos) << h.out;
}

TEST_F(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run({}).exit_code, 2);
  EXPECT_EQ(run({"frobnicate"}).exit_code, 2);
  EXPECT_EQ(run({"report"}).exit_code, 2);
  EXPECT_EQ(run({"run", "--flush-ms", "zero", "--", "true"}).exit_code, 2);
  Result nothing = run({"run", "-o", path("t")});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_NE(nothing.err.find("nothing to run"), std::string::npos) << nothing.err;
}

TEST_F(Cli, CommandNotFoundIs127NotExecutableIs126) {
  Result missing = run({"run", "-o", path("t1"), "--", "/nonexistent/program"});
  EXPECT_EQ(missing.exit_code, 127) << missing.err;
  EXPECT_NE(missing.err.find("/nonexistent/program"), std::string::npos) << missing.err;
  std::string plain = path("plain.txt");
  std::ofstream(plain) << "not a program\n";
  chmod(plain.c_str(), 0644);
  Result denied = run({"run", "-o", path("t2"), "--", plain});
  EXPECT_EQ(denied.exit_code, 126) << denied.err;
}

TEST_F(Cli, ReturnsTheChildsExitCodeAndSignal) {
  Result three = run({"run", "-o", path("t1"), "--no-report", "--", "sh", "-c", "exit 3"});
  EXPECT_EQ(three.exit_code, 3) << three.err;
  EXPECT_NE(three.err.find(path("t1")), std::string::npos) << three.err;  // says where the traces went
  Result killed = run({"run", "-o", path("t2"), "--", "sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(killed.exit_code, 128 + SIGTERM) << killed.err;
  EXPECT_NE(killed.err.find("signal"), std::string::npos) << killed.err;
}

TEST_F(Cli, ChildGetsTheRecorderEnvironment) {
  Result r = run({"run", "-o", path("t"), "--no-report", "--flush-ms", "20", "--no-stacks", "--", "sh", "-c",
                  "echo \"P=$LD_PRELOAD\"; echo \"D=$SYNCSCOPE_OUTPUT_DIR\"; echo \"F=$SYNCSCOPE_FLUSH_MS\"; "
                  "echo \"S=$SYNCSCOPE_STACKS\"; echo \"R=${SYNCSCOPE_RING_EVENTS-unset}\""});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("P=" + fs::canonical(SYNCSCOPE_PRELOAD_FILE).string() + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("D=" + path("t") + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("F=20\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("S=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("R=unset\n"), std::string::npos) << r.out;
}

TEST_F(Cli, ForwardsSignalsToTheChild) {
  for (int sig : {SIGTERM, SIGINT, SIGUSR1}) {
    const std::string number = std::to_string(sig);  // (GCC 12 -Wrestrict: no "literal" + std::string&&)
    std::string mark = path(std::string("started").append(number));
    pid_t pid = start({"run", "-o", path(std::string("t").append(number)), "--no-report", "--", "sh", "-c",
                       "touch " + mark + "; exec sleep 30"});
    for (int i = 0; i < 500 && !fs::exists(mark); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(fs::exists(mark));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // sh has exec'd sleep
    kill(pid, sig);
    Result r = wait_for(pid);
    // syncscope itself survives and reports the child's death by the signal.
    EXPECT_EQ(r.signal, 0) << sig;
    EXPECT_EQ(r.exit_code, 128 + sig) << sig << r.err;
  }
}

TEST_F(Cli, RefusesADirectoryWithTracesUnlessForced) {
  fs::create_directories(path("t"));
  std::ofstream(path("t/old.sstrace")) << "x";
  std::ofstream(path("t/notes.txt")) << "keep";
  Result refused = run({"run", "-o", path("t"), "--", "true"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_TRUE(fs::exists(path("t/old.sstrace")));
  Result forced = run({"run", "-o", path("t"), "--force", "--", "true"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_FALSE(fs::exists(path("t/old.sstrace")));
  EXPECT_TRUE(fs::exists(path("t/notes.txt")));
}

TEST_F(Cli, ReportOfMissingEmptyAndCorruptDirectories) {
  Result missing = run({"report", path("nope")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope"), std::string::npos) << missing.err;
  fs::create_directories(path("empty"));
  Result empty = run({"report", path("empty")});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("no syncscope traces"), std::string::npos) << empty.err;
  fs::create_directories(path("bad"));
  std::ofstream(path("bad/a.sstrace")) << "garbage, not a trace";
  Result corrupt = run({"report", path("bad")});
  EXPECT_EQ(corrupt.exit_code, 1);
  EXPECT_NE(corrupt.err.find("a.sstrace"), std::string::npos) << corrupt.err;
  // One good file among corrupt ones: the corrupt one is named, the rest reported.
  write_empty_trace(path("bad/b.sstrace"));
  Result mixed = run({"report", path("bad"), "--top", "3"});
  EXPECT_EQ(mixed.exit_code, 0) << mixed.err;
  EXPECT_NE(mixed.err.find("a.sstrace"), std::string::npos) << mixed.err;
  EXPECT_NE(mixed.out.find("no CUDA calls were recorded"), std::string::npos) << mixed.out;
}

}  // namespace
}  // namespace syncscope
