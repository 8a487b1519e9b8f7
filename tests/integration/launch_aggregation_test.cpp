// Aggregated launches (docs/trace-format.md, kLaunchRuns) end to end on the
// fake runtime: a training-shaped program's findings are those of full
// detail, its calls all come back, and the trace is a small fraction of the
// size; the GPU timeline keeps full detail.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/integration/harness.h"
#include "trace/api.h"
#include "trace/reader.h"

namespace syncscope::testing {
namespace {

struct Recording {
  RunResult result;
  ProcessTrace trace;
  nlohmann::json report;
  uint64_t file_bytes = 0;
};

Recording record(const std::string& name, const std::vector<std::string>& flags, const std::string& steps = "300") {
  std::string dir = fresh_dir(name);
  std::vector<std::string> argv = {
      syncscope_bin(), "run", "-o", dir + "/t", "--no-report", "--format", "json=" + dir + "/findings.json"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"--", example("training_loop"), steps});
  Recording r;
  auto env = fake_runtime_env();  // the timeline on: full detail unless a flag says otherwise
  if (std::find(flags.begin(), flags.end(), "--gpu-timeline=full") == flags.end()) env["SYNCSCOPE_GPU_TIMELINE"] = "0";
  r.result = run(argv, env);
  EXPECT_EQ(r.result.exit_code, 0) << r.result.err;
  auto traces = load_traces(dir + "/t");
  EXPECT_EQ(traces.size(), 1u);
  if (!traces.empty()) {
    r.trace = std::move(traces[0]);
    r.file_bytes = std::filesystem::file_size(r.trace.file);
  }
  std::ifstream in(dir + "/findings.json");
  r.report = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return r;
}

std::map<std::string, size_t> api_counts(const ProcessTrace& t) {
  std::map<std::string, size_t> counts;
  for (const Event& e : t.events) ++counts[std::string(api_name(e.api))];
  return counts;
}

// What a finding says, less its timings (two runs never take the same time).
std::vector<std::string> finding_identities(const nlohmann::json& report) {
  std::vector<std::string> out;
  for (const auto& f : report["processes"][0]["findings"]) {
    out.push_back(f["category"].get<std::string>() + " " + f["cause"].get<std::string>() + " " +
                  f["fingerprint"].get<std::string>() + " " + f["phase"].get<std::string>() + " count " +
                  std::to_string(f["count"].get<int>()) + " per step " + std::to_string(f["per_step"].get<double>()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// One attempt: a recording in full detail and one aggregated, compared.
// Their findings come from two runs, and where a phase ends depends on the
// run's timing (a loaded CI run once put five of a site's copies in the
// teardown of one recording and not the other), so their comparison is
// returned for expect_an_attempt_holds; what the aggregated trace holds
// fails the test at once.
std::vector<std::string> aggregation_attempt() {
  Recording full = record("aggregation-full", {"--detail", "full"});
  Recording folded = record("aggregation-default", {});
  if (full.report.is_discarded() || folded.report.is_discarded()) {
    ADD_FAILURE() << "a run left no JSON report";
    return {};
  }
  EXPECT_EQ(full.trace.info("trace.detail"), "full");
  EXPECT_EQ(folded.trace.info("trace.detail"), "aggregated");

  // Every call comes back, none dropped, all counted as written.
  EXPECT_EQ(api_counts(folded.trace), api_counts(full.trace));
  EXPECT_EQ(full.trace.launch_runs, 0u);
  EXPECT_GT(folded.trace.launch_runs, 0u);
  EXPECT_GT(folded.trace.aggregated_launches, count_api(folded.trace, ApiId::cudaLaunchKernel) * 9 / 10);
  EXPECT_EQ(folded.trace.events_dropped, 0u);
  EXPECT_TRUE(folded.trace.complete) << folded.trace.truncation;

  // Shares of step time are of the loop's time, waits between steps
  // included: none tops 100% (the read-back every 10 steps read 111%).
  for (const auto& f : folded.report["processes"][0]["findings"]) {
    EXPECT_LE(f["step_share"].get<double>(), 1.0) << f["fingerprint"] << " " << f["category"];
  }
  // The step is the training step (412 calls), not the 100-step stretch.
  EXPECT_EQ(folded.report["processes"][0]["steps"]["calls_per_step"], 4 * 97 + 24);
  EXPECT_FALSE(finding_identities(full.report).empty());
  EXPECT_EQ(folded.report["processes"][0]["launches"], full.report["processes"][0]["launches"]);

  // 300 steps of ~420 launches: a small fraction of 64 bytes per call.
  EXPECT_LT(folded.file_bytes * 10, full.file_bytes)
      << folded.file_bytes << " bytes aggregated, " << full.file_bytes << " full";

  // The same findings, steps and phases.
  std::vector<std::string> short_of;
  const std::vector<std::string> folded_findings = finding_identities(folded.report);
  const std::vector<std::string> full_findings = finding_identities(full.report);
  if (folded_findings != full_findings) {
    std::string only_folded, only_full;
    for (const std::string& f : folded_findings) {
      if (std::find(full_findings.begin(), full_findings.end(), f) == full_findings.end()) only_folded += "\n    " + f;
    }
    for (const std::string& f : full_findings) {
      if (std::find(folded_findings.begin(), folded_findings.end(), f) == folded_findings.end())
        only_full += "\n    " + f;
    }
    short_of.push_back("the findings differ; aggregated only:" + only_folded + "\n   full detail only:" + only_full);
  }
  if (folded.report["processes"][0]["steps"]["detected"] != full.report["processes"][0]["steps"]["detected"]) {
    short_of.push_back("steps detected: aggregated " + folded.report["processes"][0]["steps"]["detected"].dump() +
                       ", full detail " + full.report["processes"][0]["steps"]["detected"].dump());
  }
  return short_of;
}

TEST(LaunchAggregation, FindingsEqualFullDetailAtAFractionOfTheSize) { expect_an_attempt_holds(aggregation_attempt); }

// A long trace is reported folded (its runs stay runs: trace/reader.h,
// ReadOptions); SYNCSCOPE_FOLD_ABOVE_CALLS=0 folds this one: the findings,
// steps, calls and launches are those of the same trace read launch by
// launch (which FindingsEqualFullDetailAtAFractionOfTheSize compares with
// full detail). Compared with a second recording instead, the folded view
// saw an extra phase once in a loaded ctest run: where a run of launches
// is closed for idleness (200 ms) depends on the machine's load, and a
// folded run is one event.
TEST(LaunchAggregation, TheFoldedReportEqualsFullDetail) {
  Recording aggregated = record("aggregation-default-2", {});
  Recording& full = aggregated;  // its report (--format json at the run) is read launch by launch
  const std::string dir = std::filesystem::path(aggregated.trace.file).parent_path().string();
  const std::string json = fresh_dir("aggregation-folded-report") + "/folded.json";
  auto env = fake_runtime_env();
  env["SYNCSCOPE_FOLD_ABOVE_CALLS"] = "0";
  RunResult r = run({syncscope_bin(), "report", dir, "--format", "text", "--format", "json=" + json}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(json);
  const nlohmann::json folded = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(folded.is_discarded());
  const auto& f = folded["processes"][0];
  const auto& w = full.report["processes"][0];
  // Seen in a clean-clone CI run (2026-12-07) and in 4 of 180 loaded runs
  // (2026-12-08): the folded reading put the eval's 48 uploads in an eval
  // phase at 1.00 a step where the launch by launch one found a phase of
  // one-layer steps, or lost the last batches to the loop. Mended in
  // segmentation (docs/steps-and-phases.md; ProgramShapes.
  // EvalBatchesOfIdenticalLayersByPattern); the phases say where two
  // readings part if they do again.
  EXPECT_EQ(finding_identities(folded), finding_identities(full.report))
      << "phases folded: " << f["phases"].dump() << "\nphases launch by launch: " << w["phases"].dump();
  EXPECT_EQ(f["events"], w["events"]);
  EXPECT_EQ(f["launches"], w["launches"]);
  EXPECT_EQ(f["steps"]["count"], w["steps"]["count"]);
  EXPECT_EQ(f["steps"]["calls_per_step"], w["steps"]["calls_per_step"]);
  EXPECT_NE(r.out.find("(a repeating pattern of 412 calls)"), std::string::npos) << r.out;
}

// What a finding is and how often, less its per-step figures (a trace
// read in windows may count a step more or less at each window's edge).
std::vector<std::string> finding_counts(const nlohmann::json& report) {
  std::vector<std::string> out;
  for (const auto& f : report["processes"][0]["findings"]) {
    out.push_back(f["category"].get<std::string>() + " " + f["cause"].get<std::string>() + " " +
                  f["fingerprint"].get<std::string>() + " " + f["phase"].get<std::string>() + " count " +
                  std::to_string(f["count"].get<int>()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A trace of more events than SYNCSCOPE_WINDOW_EVENTS is read and analysed
// window by window (trace/trace_stream.h, detectors/windowed_analysis.h):
// here 100,000 events a window (the fewest allowed), a few windows. The same findings, counts
// and calls as the whole trace's report; steps within one per window; the
// report says so.
TEST(LaunchAggregation, ALongTraceReadInWindowsReportsWhatTheWholeTraceDoes) {
  Recording whole = record("aggregation-windows", {"--detail", "full"}, "1000");
  const std::string dir = std::filesystem::path(whole.trace.file).parent_path().string();
  const std::string json = fresh_dir("aggregation-windows-report") + "/windows.json";
  auto env = fake_runtime_env();
  env["SYNCSCOPE_WINDOW_EVENTS"] = "100000";
  RunResult r = run({syncscope_bin(), "report", dir, "--format", "text", "--format", "json=" + json}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(json);
  const nlohmann::json windows = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(windows.is_discarded());
  const auto& w = windows["processes"][0];
  const auto& f = whole.report["processes"][0];
  EXPECT_GE(w["read_in_windows"].get<int>(), 2);
  EXPECT_EQ(f["read_in_windows"].get<int>(), 0);
  EXPECT_EQ(finding_counts(windows), finding_counts(whole.report));
  EXPECT_FALSE(finding_counts(windows).empty());
  EXPECT_EQ(w["events"], f["events"]);
  EXPECT_EQ(w["launches"], f["launches"]);
  EXPECT_EQ(w["api_counts"], f["api_counts"]);
  EXPECT_EQ(w["steps"]["calls_per_step"], f["steps"]["calls_per_step"]);
  EXPECT_LE(w["steps"]["count"].get<int>(), f["steps"]["count"].get<int>() + w["read_in_windows"].get<int>());
  EXPECT_GE(w["steps"]["count"].get<int>() + w["read_in_windows"].get<int>(), f["steps"]["count"].get<int>());
  EXPECT_NE(r.out.find("read and analysed in " + std::to_string(w["read_in_windows"].get<int>()) + " windows"),
            std::string::npos)
      << r.out;
}

// `report --between` on a trace too long to hold whole keeps only the
// stretch's events as it reads: the same report as reading it whole.
TEST(LaunchAggregation, AStretchOfALongTraceIsTheStretchOfTheWholeOne) {
  Recording whole = record("aggregation-between", {"--detail", "full"});
  const std::string dir = std::filesystem::path(whole.trace.file).parent_path().string();
  const uint64_t start = whole.trace.events[whole.trace.events.size() / 4].start_ns;
  const uint64_t end = whole.trace.events[whole.trace.events.size() / 2].start_ns;
  const std::string between = std::to_string(start) + "," + std::to_string(end);
  const std::string out = fresh_dir("aggregation-between-report");
  auto env = fake_runtime_env();
  RunResult a = run({syncscope_bin(), "report", dir, "--between", between, "--format", "json=" + out + "/a.json"}, env);
  env["SYNCSCOPE_WINDOW_EVENTS"] = "100000";
  RunResult b = run({syncscope_bin(), "report", dir, "--between", between, "--format", "json=" + out + "/b.json"}, env);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  std::ifstream in_a(out + "/a.json"), in_b(out + "/b.json");
  const nlohmann::json ja = nlohmann::json::parse(in_a, nullptr, false),
                       jb = nlohmann::json::parse(in_b, nullptr, false);
  ASSERT_FALSE(ja.is_discarded() || jb.is_discarded());
  EXPECT_EQ(finding_identities(ja), finding_identities(jb));
  EXPECT_EQ(ja["processes"][0]["events"], jb["processes"][0]["events"]);
  EXPECT_LT(ja["processes"][0]["events"].get<uint64_t>(), whole.report["processes"][0]["events"].get<uint64_t>());
  EXPECT_EQ(jb["processes"][0]["read_in_windows"].get<int>(), 0);
}

// A directory of many processes: past four windows' worth of events held
// for the report, further traces are analysed as they are read, so memory
// stays bounded however many ranks there are; each one's findings the same.
TEST(LaunchAggregation, ManyProcessesPastTheBudgetAreAnalysedAsTheyAreRead) {
  Recording one = record("aggregation-ranks", {"--detail", "full"});
  const std::string dir = fresh_dir("aggregation-ranks-dir");
  std::filesystem::create_directories(dir);
  for (int copy = 0; copy < 5; ++copy) {
    std::filesystem::copy_file(one.trace.file, dir + "/" + std::to_string(1000 + copy) + "-0.sstrace");
  }
  const uint64_t events = one.trace.events.size();
  auto env = fake_runtime_env();
  env["SYNCSCOPE_WINDOW_EVENTS"] = std::to_string(events + 100);  // each fits a window; four fit the budget
  const std::string json = dir + "/report.json";
  RunResult r = run({syncscope_bin(), "report", dir, "--format", "json=" + json}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(json);
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(report.is_discarded());
  ASSERT_EQ(report["processes"].size(), 5u);
  int windowed = 0;
  for (const auto& p : report["processes"]) {
    windowed += p["read_in_windows"].get<int>() > 0;
    nlohmann::json alone = report;
    alone["processes"] = nlohmann::json::array({p});
    EXPECT_EQ(finding_counts(alone), finding_counts(one.report));
  }
  EXPECT_EQ(windowed, 1);
}

// The GPU timeline joins CUPTI's records to each launch: full detail then.
TEST(LaunchAggregation, TheGpuTimelineKeepsFullDetail) {
  Recording r = record("aggregation-timeline", {"--gpu-timeline=full"});
  EXPECT_EQ(r.trace.info("trace.detail"), "full (GPU timeline)");
  EXPECT_EQ(r.trace.launch_runs, 0u);
  EXPECT_FALSE(r.trace.gpu_activity.empty());
}

TEST(LaunchAggregation, DetailTakesOnlyItsTwoValues) {
  RunResult r = run({syncscope_bin(), "run", "--detail", "some", "--", example("exit_code"), "0"}, fake_runtime_env());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--detail"), std::string::npos) << r.err;
}

// The line of launch_bursts.py in an event's Python stack (0: none).
uint32_t python_line_of(const ProcessTrace& t, const Event& e) {
  auto stack = t.python_stacks.find(e.stack_id);
  if (stack == t.python_stacks.end()) return 0;
  for (const PythonFrame& frame : stack->second) {
    auto code = t.python_code.find(frame.code_id);
    if (code != t.python_code.end() && code->second.file.size() >= 16 &&
        code->second.file.compare(code->second.file.size() - 16, 16, "launch_bursts.py") == 0) {
      return frame.line;
    }
  }
  return 0;
}

// A sync made with the GIL released waits for its Python frames until the
// GIL is taken back, so its event reaches the ring after the launches that
// followed it; its order mark keeps it in place: in the trace, each step's
// 40 launches before the sync start before it and the 40 after start after.
TEST(LaunchAggregation, ASyncOwingItsPythonFramesStaysBetweenItsLaunches) {
  std::string dir = fresh_dir("aggregation-gil");
  auto env = fake_runtime_env();
  env["SYNCSCOPE_GPU_TIMELINE"] = "0";
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", "/usr/bin/env", "python3",
                     SYNCSCOPE_SOURCE_DIR "/tests/integration/python/launch_bursts.py",
                     std::string(SYNCSCOPE_EXAMPLES_DIR) + "/liblaunch_burst.so", "20"},
                    env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  const ProcessTrace& t = traces[0];
  EXPECT_GT(t.launch_runs, 0u) << "the bursts were aggregated";
  size_t syncs = 0;
  int launches_since_sync = -1;  // -1: before the first sync
  for (const Event& e : t.events) {
    if (e.api == static_cast<uint16_t>(ApiId::cudaStreamSynchronize)) {
      ++syncs;
      if (launches_since_sync >= 0)
        EXPECT_EQ(launches_since_sync, 80) << "between syncs " << syncs - 1 << " and " << syncs;
      launches_since_sync = 0;
      EXPECT_EQ(python_line_of(t, e), 16u) << "the sync owes its Python line";
    } else if (api_family(e.api) == ApiFamily::kLaunch && launches_since_sync >= 0) {
      ++launches_since_sync;
    }
  }
  EXPECT_EQ(syncs, 20u);
  EXPECT_EQ(launches_since_sync, 40);
}

}  // namespace
}  // namespace syncscope::testing
