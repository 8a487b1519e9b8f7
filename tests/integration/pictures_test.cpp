// The pictures end to end (docs/pictures.md): `syncscope run --format
// perfetto=F --format html=G` on hidden_sync_loop under the fake runtime and
// its fake CUPTI (a GPU timeline), both files read back.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/integration/harness.h"

namespace syncscope::testing {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Pictures {
  RunResult result;
  std::vector<ProcessTrace> traces;
  nlohmann::json perfetto;
  std::string html;
};

Pictures record(const std::string& name, std::map<std::string, std::string> env) {
  const std::string dir = fresh_dir(name);
  for (const auto& [k, v] : fake_runtime_env()) env.emplace(k, v);
  Pictures out;
  out.result = run({syncscope_bin(), "run", "-o", dir + "/t", "--format", "perfetto=" + dir + "/trace.json", "--format",
                    "html=" + dir + "/report.html", "--", example("hidden_sync_loop"), "40"},
                   env);
  EXPECT_EQ(out.result.exit_code, 0) << out.result.err;
  out.traces = load_traces(dir + "/t");
  out.perfetto = nlohmann::json::parse(read_file(dir + "/trace.json"));
  out.html = read_file(dir + "/report.html");
  return out;
}

TEST(Pictures, PerfettoTraceHasCallsGpuStreamsStepsAndFindings) {
  Pictures p = record("pictures-perfetto", {});
  ASSERT_EQ(p.traces.size(), 1u);
  const int64_t pid = p.traces[0].header.pid;
  // Every format went to a file: the text report still reached the terminal.
  EXPECT_NE(p.result.out.find("hidden-sync"), std::string::npos) << p.result.out;
  std::map<std::string, size_t> host, gpu;
  std::set<int64_t> gpu_pids;
  size_t steps = 0, findings = 0;
  double last = -1;
  for (const auto& e : p.perfetto.at("traceEvents")) {
    if (e["ph"] == "M") {
      if (e["name"] == "process_name" && e["args"]["name"].get<std::string>().starts_with("GPU (SIMULATED) of")) {
        gpu_pids.insert(e["pid"].get<int64_t>());
      }
      continue;
    }
    EXPECT_GE(e["ts"].get<double>(), last);
    last = e["ts"].get<double>();
    if (e["ph"] == "X") {
      EXPECT_GE(e["dur"].get<double>(), 0.0);
    }
    if (e["ph"] == "X" && e["pid"] == pid && e["cat"] == "step") ++steps;
    if (e["ph"] == "X" && e["pid"] == pid) ++host[e["name"]];
    if (e["ph"] == "X" && gpu_pids.count(e["pid"].get<int64_t>())) ++gpu[e["cat"]];
    if (e["ph"] == "i" && e["cat"] == "finding" && e["args"]["category"] == "hidden-sync" &&
        e["args"]["phase"] == "steady") {
      ++findings;
      EXPECT_NE(e["args"]["where"].get<std::string>().find("read_loss_value"), std::string::npos) << e;
      EXPECT_FALSE(e["args"]["native"].empty()) << e;
    }
  }
  EXPECT_EQ(host["cudaStreamSynchronize"], 40u);
  EXPECT_EQ(host["cudaMemcpyAsync"], 40u);
  ASSERT_EQ(gpu_pids.size(), 1u);
  EXPECT_EQ(gpu["kernel"], 120u);
  EXPECT_EQ(gpu["memcpy"], 40u);
  EXPECT_GT(steps, 30u);
  EXPECT_GT(findings, 30u);
}

TEST(Pictures, HtmlReportShowsGpuBarsAndTheFinding) {
  Pictures p = record("pictures-html", {});
  const std::string& html = p.html;
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("SIMULATED"), std::string::npos);
  EXPECT_NE(html.find("GPU busy and idle by cause, per step"), std::string::npos);
  EXPECT_NE(html.find("hidden-sync"), std::string::npos);
  EXPECT_NE(html.find("read_loss_value"), std::string::npos);
  EXPECT_NE(html.find("<h3>Device memory</h3>"), std::string::npos);
}

TEST(Pictures, HtmlWithoutTimelineSaysWhy) {
  Pictures p = record("pictures-html-off", {{"SYNCSCOPE_GPU_TIMELINE", "0"}});
  EXPECT_NE(p.html.find("host blocked per step</h3>"), std::string::npos);
  EXPECT_NE(p.html.find("GPU timeline not recorded"), std::string::npos);
  for (const auto& e : p.perfetto.at("traceEvents")) {
    if (e["ph"] == "X") {
      EXPECT_NE(e["cat"], "kernel");
    }
  }
}

}  // namespace
}  // namespace syncscope::testing
