// Issue 24, end to end on the fake runtime: the recorder never writes into
// a file the program opened, even after the program closed every
// descriptor and reused the numbers; files and endpoints another local user
// could redirect are refused (docs/security.md).
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <signal.h>

#include "harness.h"
#include "trace/process_info_keys.h"

namespace syncscope::testing {
namespace {

namespace fs = std::filesystem;

// close_range(3, ~0U), then every number up to 1023 is the program's: its
// files hold exactly what it wrote, and the trace (reopened by its path)
// holds both halves of the run and its end.
TEST(Trust, AProgramThatClosesEveryDescriptorKeepsItsFilesIntact) {
  std::string dir = fresh_dir("close-every-fd");
  fs::create_directories(dir + "/own");
  RunResult r = run({syncscope_bin(), "run", "-o", dir + "/t", "--fail-on", "hidden-sync", "--", "/usr/bin/env",
                     "python3", SYNCSCOPE_SOURCE_DIR "/tests/integration/python/close_every_fd.py", dir + "/own", "40"},
                    fake_runtime_env());
  EXPECT_EQ(r.exit_code, 3) << "the gate judges the whole run (80 syncs)\n" << r.err;
  EXPECT_NE(r.out.find("done"), std::string::npos) << r.out;
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(slurp(dir + "/own/own-" + std::to_string(k) + ".txt"),
              "file " + std::to_string(k) + " of the program\n");
  }
  EXPECT_EQ(fs::file_size(dir + "/own/every-number.txt"), 0u) << "the recorder wrote into the program's file";
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_TRUE(traces[0].complete) << r.err;
  EXPECT_EQ(count_api(traces[0], ApiId::cudaDeviceSynchronize), 80u);
  EXPECT_NE(traces[0].info(info_key::kTraceReopened), "");
  EXPECT_NE(r.err.find("closed the descriptor of trace"), std::string::npos) << r.err;
}

// Traces hold the command line (tokens in argv): only their owner reads
// them, whatever the umask.
TEST(Trust, TracesAreTheOwnersAlone) {
  std::string dir = fresh_dir("trace-modes");
  const mode_t old_mask = umask(022);
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", example("hidden_sync_loop"), "5"},
                    fake_runtime_env());
  umask(old_mask);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st;
  ASSERT_EQ(stat((dir + "/t").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  size_t traces = 0;
  for (const auto& entry : fs::directory_iterator(dir + "/t")) {
    ASSERT_EQ(stat(entry.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << entry.path();
    traces += entry.path().extension() == ".sstrace";
  }
  EXPECT_EQ(traces, 1u);
}

// GNU timeout signals syncscope and then its whole process group: the
// command gets the signal once, from the group kill (it got it twice).
// A signal for syncscope alone is still forwarded, once.
TEST(Trust, AGroupSignalReachesTheCommandOnce) {
  const std::string script = SYNCSCOPE_SOURCE_DIR "/tests/integration/python/count_signals.py";
  std::string dir = fresh_dir("group-sigint");
  // timeout's signal at 8 s: Python under the recorder took 1.2 s, and on a
  // 2-core machine with two builds beside it more than 4 s, to start, and a
  // SIGINT before its handler ends it. The script syncs for 12 s.
  RunResult r = run({"/usr/bin/timeout", "-s", "INT", "8", syncscope_bin(), "run", "--no-report", "-o", dir + "/t",
                     "--", "/usr/bin/env", "python3", script, "12"},
                    fake_runtime_env());
  EXPECT_NE(r.out.find("SIGINT received 1 time(s)"), std::string::npos) << r.out << r.err;

  dir = fresh_dir("own-sigint");
  const std::string ready = dir + "/ready";
  Started s = start({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", "/usr/bin/env", "python3", script,
                     "6", ready},
                    fake_runtime_env());
  for (int i = 0; i < 3000 && !fs::exists(ready); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(fs::exists(ready)) << "the program never got its handler in place";
  kill(s.pid, SIGINT);
  r = finish(s, 60);
  EXPECT_NE(r.out.find("SIGINT received 1 time(s)"), std::string::npos) << r.out << r.err;
}

// A command that fails under a gate that fails: syncscope exits with the
// command's status and says so (it said "exit status 3" and exited 5).
TEST(Trust, TheStatusSaidIsTheStatusExited) {
  std::string dir = fresh_dir("status-said");
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--fail-on", "hidden-sync", "--",
                     "/usr/bin/env", "python3", "-c",
                     "import ctypes, sys\n"
                     "ctypes.CDLL('libcudart.so.13', mode=ctypes.RTLD_GLOBAL)\n"
                     "cuda = ctypes.CDLL(None)\n"
                     "for _ in range(300): cuda.cudaDeviceSynchronize()\n"
                     "sys.exit(5)\n"},
                    fake_runtime_env());
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("gate failed: findings over budget (exit status 5, the command's own)"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("exit status 3"), std::string::npos) << r.err;
}

// -o naming a link another user planted (in /tmp, say) is refused before
// the command runs; --force deletes only plain trace files of ours.
TEST(Trust, AnotherUsersLinkOrFilesAreNeverFollowedOrDeleted) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to own files as another user";
  std::string dir = fresh_dir("planted-o");
  fs::create_directories(dir + "/victim");
  { std::ofstream(dir + "/victim/123-0.sstrace") << "the victim's"; }
  fs::create_symlink(dir + "/victim", dir + "/out");
  ASSERT_EQ(lchown((dir + "/out").c_str(), 65534, 65534), 0);
  RunResult r = run({syncscope_bin(), "run", "--force", "-o", dir + "/out", "--", example("hidden_sync_loop"), "5"},
                    fake_runtime_env());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("symbolic link owned by another user"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir + "/victim/123-0.sstrace"), "the victim's");
  EXPECT_EQ(r.out.find("hidden_sync_loop"), std::string::npos) << "the command must not run";

  // Our own directory holding a trace that is another user's, or a link:
  // --force leaves them and refuses.
  fs::create_directories(dir + "/mine");
  { std::ofstream(dir + "/mine/1-0.sstrace") << "someone else's"; }
  ASSERT_EQ(chown((dir + "/mine/1-0.sstrace").c_str(), 65534, 65534), 0);
  r = run({syncscope_bin(), "run", "--force", "-o", dir + "/mine", "--", example("hidden_sync_loop"), "5"},
          fake_runtime_env());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--force leaves"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir + "/mine/1-0.sstrace"));
  fs::remove(dir + "/mine/1-0.sstrace");
  fs::create_symlink(dir + "/victim/123-0.sstrace", dir + "/mine/2-0.sstrace");
  r = run({syncscope_bin(), "run", "--force", "-o", dir + "/mine", "--", example("hidden_sync_loop"), "5"},
          fake_runtime_env());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("not a plain file"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir + "/victim/123-0.sstrace"), "the victim's");
  // Plain traces of ours: replaced.
  fs::remove(dir + "/mine/2-0.sstrace");
  { std::ofstream(dir + "/mine/3-0.sstrace") << "old"; }
  r = run({syncscope_bin(), "run", "--force", "--no-report", "-o", dir + "/mine", "--", example("hidden_sync_loop"),
           "5"},
          fake_runtime_env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/mine/3-0.sstrace"));
}

// The list of processes without CUDA is appended to by every such process
// of the run: a link planted under its name (here by the command itself,
// as another user could in a shared directory) is never followed.
TEST(Trust, APlantedLinkAtTheProcessListIsNeverFollowed) {
  std::string dir = fresh_dir("planted-log");
  const std::string victim = dir + "/victim";
  { std::ofstream(victim) << "the caller's own file"; }
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", "/bin/sh", "-c",
                     "ln -s " + victim + " " + dir + "/t/processes-without-cuda.log; /bin/true"},
                    fake_runtime_env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir + "/t/processes-without-cuda.log"));
  EXPECT_EQ(slurp(victim), "the caller's own file");
}

}  // namespace
}  // namespace syncscope::testing
