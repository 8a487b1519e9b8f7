// Issue 15's defects, end to end on the fake runtime: bytes that are not
// UTF-8 in what a trace records never abort a JSON or SARIF report, and a
// Python file named by a trace that is now a FIFO or a device neither hangs
// the report nor grows it without bound.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness.h"

namespace syncscope::testing {
namespace {

TEST(HostileInputs, InvalidUtf8InTheCommandLineNeverAbortsAReport) {
  std::string dir = fresh_dir("hostile-utf8");
  RunResult r = run({syncscope_bin(), "run", "-o", dir + "/t", "--format", "json=" + dir + "/f.json", "--format",
                     "sarif=" + dir + "/f.sarif", "--format", "text", "--", example("exit_code"), "5", "bad\xff\xfe"},
                    fake_runtime_env());
  EXPECT_EQ(r.exit_code, 5) << r.err;  // the command's own status, not SIGABRT's 134
  for (const char* name : {"/f.json", "/f.sarif"}) {
    std::string text = slurp(dir + name);
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << name;
  }
  // The command line is in the JSON (argv), each bad byte as U+FFFD.
  EXPECT_NE(slurp(dir + "/f.json").find("bad\xef\xbf\xbd"), std::string::npos);
}

TEST(HostileInputs, APythonFileThatIsNowAFifoOrADeviceIsNotRead) {
  std::string dir = fresh_dir("hostile-python-file");
  std::string script = dir + "/loop.py";
  std::filesystem::copy_file(SYNCSCOPE_SOURCE_DIR "/examples/python/ctypes_sync_loop.py", script);
  RunResult r =
      run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", "/usr/bin/env", "python3", script, "50"},
          fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The report reads source lines from the file the trace names.
  std::filesystem::remove(script);
  ASSERT_EQ(mkfifo(script.c_str(), 0600), 0);
  RunResult fifo = run({"/usr/bin/timeout", "60", syncscope_bin(), "report", dir + "/t"});
  EXPECT_EQ(fifo.exit_code, 0) << "a FIFO must not block the report (124: timed out)\n" << fifo.err;
  EXPECT_NE(fifo.out.find("loop.py:34"), std::string::npos) << fifo.out;
  std::filesystem::remove(script);
  std::filesystem::create_symlink("/dev/zero", script);
  RunResult zero = run(
      {"/usr/bin/timeout", "60", "/usr/bin/env", "prlimit", "--as=4000000000", syncscope_bin(), "report", dir + "/t"});
  EXPECT_EQ(zero.exit_code, 0) << "/dev/zero must not be read\n" << zero.err;
}

}  // namespace
}  // namespace syncscope::testing

namespace syncscope::testing {
namespace {

TEST(HostileInputs, AClosedPipeKeepsTheCommandsStatus) {
  std::string dir = fresh_dir("hostile-sigpipe");
  // The report (many lines) goes to `head -c 1`, which exits at once.
  RunResult r = run({"/bin/bash", "-c",
                     syncscope_bin() + " run -o " + dir + "/t -- " + example("exit_code") +
                         " 5 | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}"},
                    fake_runtime_env());
  EXPECT_EQ(r.exit_code, 5) << "141 is SIGPIPE\n" << r.err;
}

TEST(HostileInputs, AReportFileNamedLikeATraceIsRefused) {
  std::string dir = fresh_dir("hostile-format-trace");
  RunResult r = run({syncscope_bin(), "run", "-o", dir + "/t", "--format", "json=" + dir + "/t/1-0.sstrace", "--",
                     example("exit_code"), "0"},
                    fake_runtime_env());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("would overwrite a recording"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace syncscope::testing

namespace syncscope::testing {
namespace {

// --no-report with no file and no gate: no analysis at all (issue 15), only
// where the traces are and what went wrong while recording.
TEST(HostileInputs, NoReportSaysWhereTheTracesAreAndWhatWentWrong) {
  std::string dir = fresh_dir("no-report");
  auto env = fake_runtime_env();
  env["SYNCSCOPE_FLUSH_MS"] = "60000";  // the ring overflows between flushes
  RunResult r = run({syncscope_bin(), "run", "--no-report", "--ring-events", "64", "-o", dir + "/t", "--",
                     example("hidden_sync_loop"), "2000"},
                    env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("findings"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("traces in " + dir + "/t"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dropped"), std::string::npos) << "the drops are still said\n" << r.err;
}

// Terminal controls in the recorded command line (a token, a crafted file
// name) reach the text report and dump escaped, never raw (issue 24, item 7).
TEST(HostileInputs, TerminalControlsInTheCommandLineAreEscaped) {
  std::string dir = fresh_dir("terminal-controls");
  const std::string hostile = "\033]0;owned\007\033[2J";
  RunResult r = run({syncscope_bin(), "run", "-o", dir + "/t", "--", "/usr/bin/env", "python3",
                     SYNCSCOPE_SOURCE_DIR "/examples/python/ctypes_sync_loop.py", "10", hostile},
                    fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\033'), std::string::npos) << "a raw ESC reached the terminal";
  EXPECT_EQ(r.out.find('\007'), std::string::npos);
  EXPECT_NE(r.out.find("\\x1b]0;owned\\x07\\x1b[2J"), std::string::npos) << r.out;
  RunResult dump = run({syncscope_bin(), "dump", dir + "/t"});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(dump.out.find('\033'), std::string::npos);
  EXPECT_NE(dump.out.find("\\x1b]0;owned"), std::string::npos) << dump.out.substr(0, 2000);
}

// Report files are written through a temporary of a random name created
// O_EXCL, then renamed: symlinks another user planted at the names the old
// PATH.tmp.<pid> scheme would use, or at PATH itself, never redirect the
// write into a file of the caller's (issue 24, item 3).
TEST(HostileInputs, PlantedSymlinksNeverRedirectAReportFile) {
  namespace fs = std::filesystem;
  std::string dir = fresh_dir("planted-links");
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", example("hidden_sync_loop"), "20"},
                    fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string victim = dir + "/victim";
  std::ofstream(victim) << "the caller's own file";
  const std::string report = dir + "/r.json";
  int next_pid = 0;
  std::ifstream("/proc/sys/kernel/ns_last_pid") >> next_pid;
  for (int pid = next_pid; pid < next_pid + 400; ++pid) {
    fs::create_symlink(victim, report + ".tmp." + std::to_string(pid));
  }
  fs::create_symlink(victim, report);
  for (int i = 0; i < 3; ++i) {
    r = run({syncscope_bin(), "report", dir + "/t", "--format", "json=" + report});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::ifstream in(victim);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "the caller's own file");
  EXPECT_FALSE(fs::is_symlink(report));
  std::ifstream written(report);
  EXPECT_FALSE(nlohmann::json::parse(written, nullptr, false).is_discarded());
  EXPECT_EQ(fs::status(report).permissions() & fs::perms::others_read, fs::perms::none) << "reports hold the argv";
}

// An environment knob that is not a count is said to be ignored, never
// silently (issue 24, item 7): SYNCSCOPE_WINDOW_EVENTS=abc, -5, 0.
TEST(HostileInputs, AKnobThatIsNotACountIsSaidToBeIgnored) {
  std::string dir = fresh_dir("knobs");
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", example("hidden_sync_loop"), "20"},
                    fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* value : {"abc", "-5", "0"}) {
    std::map<std::string, std::string> env = {{"SYNCSCOPE_WINDOW_EVENTS", value}};
    RunResult report = run({syncscope_bin(), "report", dir + "/t"}, env);
    EXPECT_EQ(report.exit_code, 0) << report.err;
    EXPECT_NE(report.err.find(std::string("SYNCSCOPE_WINDOW_EVENTS=") + value + ": not a positive count, ignored"),
              std::string::npos)
        << value << ": " << report.err;
  }
  // A window too small to hold a loop's steps whole is raised, and said.
  RunResult small = run({syncscope_bin(), "report", dir + "/t"}, {{"SYNCSCOPE_WINDOW_EVENTS", "1000"}});
  EXPECT_EQ(small.exit_code, 0) << small.err;
  EXPECT_NE(small.err.find("SYNCSCOPE_WINDOW_EVENTS=1000: below 100000"), std::string::npos) << small.err;
  // The recorder's own knobs, set by hand: said, with what is used instead.
  auto env = fake_runtime_env();
  env["SYNCSCOPE_FLUSH_MS"] = "abc";
  env["SYNCSCOPE_RING_EVENTS"] = "-5";
  env["SYNCSCOPE_DETAIL"] = "fulll";
  RunResult knobs =
      run({syncscope_bin(), "run", "--no-report", "-o", dir + "/k", "--", example("hidden_sync_loop"), "5"}, env);
  EXPECT_EQ(knobs.exit_code, 0) << knobs.err;
  for (const char* said : {"SYNCSCOPE_FLUSH_MS=abc: not a count from 1 to 60000, ignored (using 50)",
                           "SYNCSCOPE_RING_EVENTS=-5: not a count", "SYNCSCOPE_DETAIL=fulll: not one of full, aggregated"}) {
    EXPECT_NE(knobs.err.find(said), std::string::npos) << said << "\n" << knobs.err;
  }
  RunResult fine = run({syncscope_bin(), "report", dir + "/t"}, {{"SYNCSCOPE_FOLD_ABOVE_CALLS", "0"}});
  EXPECT_EQ(fine.err.find("ignored"), std::string::npos) << fine.err;
}

}  // namespace
}  // namespace syncscope::testing
