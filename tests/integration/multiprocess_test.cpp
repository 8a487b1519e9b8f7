// Every process of a job: a launcher starts ranks directly, through a shell
// `exec` and through `env`, plus a helper that never touches CUDA; the report
// has a section per rank, counts the helper, and flags the straggler.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/integration/harness.h"

namespace syncscope::testing {
namespace {

std::string launcher() { return std::string(SYNCSCOPE_SOURCE_DIR) + "/examples/launchers/fake_torchrun.sh"; }

TEST(MultiProcess, EveryRankReportedAndTheStragglerStandsOut) {
  std::string dir = fresh_dir("ranks");
  RunResult r = run({syncscope_bin(), "run", "-o", dir + "/t", "--format", "text", "--format",
                     "json=" + dir + "/r.json", "--", launcher(), "3", example("rank_worker"), "60"},
                    fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One trace per rank (the shell wrapper exec'ed into its rank).
  EXPECT_EQ(load_traces(dir + "/t").size(), 3u);
  for (const char* rank : {"rank 0 (pid", "rank 1 (pid", "rank 2 (pid"}) {
    EXPECT_NE(r.out.find(rank), std::string::npos) << rank << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("== across processes: host blocked per step"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("without CUDA calls not shown"), std::string::npos) << r.out;

  std::ifstream in(dir + "/r.json");
  nlohmann::json report = nlohmann::json::parse(in);
  ASSERT_EQ(report["processes"].size(), 3u);
  EXPECT_GE(report["processes_without_cuda"].get<int>(), 1);  // the helper
  std::map<std::string, double> syncs;
  for (const auto& p : report["processes"]) {
    ASSERT_TRUE(p.contains("rank"));
    EXPECT_EQ(p["world_size"], "3");
    syncs[p["rank"].get<std::string>()] = p["sync_calls_per_step"].get<double>();
  }
  EXPECT_NEAR(syncs["0"], 1.0, 0.05);
  EXPECT_NEAR(syncs["1"], 4.0, 0.2);
  EXPECT_NEAR(syncs["2"], 1.0, 0.05);
  bool straggler = false;
  for (const auto& o : report["across_processes"]["outliers"]) {
    if (o["rank"] == "1" && o["reason"].get<std::string>().find("syncs per step") != std::string::npos)
      straggler = true;
    // Ranks 0 and 2 sync as often as each other; only time noise could flag them.
    if (o["rank"] != "1") {
      EXPECT_EQ(o["reason"].get<std::string>().find("syncs per step"), std::string::npos);
    }
  }
  EXPECT_TRUE(straggler) << report["across_processes"].dump();
}

// Budgets apply per process: only the straggler's 4 syncs per step fail.
TEST(MultiProcess, GateNamesTheRankOverBudget) {
  std::string dir = fresh_dir("ranks-gate");
  RunResult r = run({syncscope_bin(), "run", "-o", dir + "/t", "--budget", "hidden-sync=2/step", "--", launcher(), "2",
                     example("rank_worker"), "40"},
                    fake_runtime_env());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("gate: FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 1 (pid"), std::string::npos);
  size_t verdict = r.out.rfind("gate: FAIL");
  std::string tail = r.out.substr(verdict);
  EXPECT_NE(tail.find("rank 1"), std::string::npos) << tail;
  EXPECT_EQ(tail.find("rank 0"), std::string::npos) << tail;
}

// `python -m module` behind a shell `cd && exec`: the interpreter inherits
// the preload and its Python line is found.
TEST(MultiProcess, PythonDashMBehindAShellWrapper) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  std::string dir = fresh_dir("python-m");
  std::string command = "cd '" SYNCSCOPE_SOURCE_DIR "/examples/python' && exec python3 -m ctypes_sync_loop 40";
  RunResult r = run(
      {syncscope_bin(), "run", "-o", dir + "/t", "--format", "json=" + dir + "/r.json", "--", "/bin/sh", "-c", command},
      fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir + "/r.json");
  nlohmann::json report = nlohmann::json::parse(in);
  ASSERT_EQ(report["processes"].size(), 1u);
  bool found = false;
  for (const auto& f : report["processes"][0]["findings"]) {
    if (f["phase"] != "steady" || f["user_frame"].is_null()) continue;
    std::string file = f["user_frame"]["file"];
    const std::string suffix = "/ctypes_sync_loop.py";
    found |= file.size() >= suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0 &&
             f["user_frame"]["line"] == 34;
  }
  EXPECT_TRUE(found) << report.dump(1);
}

}  // namespace
}  // namespace syncscope::testing
