// Issue 27 on the fake runtime: the saving predicted from the broken twin's
// recording against the saving measured between the twins
// (examples/cpp/readback_twins.cu), for a GPU-bound and a host-bound loop,
// with and without the GPU timeline. Timing-sensitive: its executable runs
// alone (RUN_SERIAL).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "detectors/analysis.h"
#include "tests/integration/harness.h"
#include "whatif/finding_predictions.h"

namespace syncscope::testing {
namespace {

constexpr int kSteps = 150;

// The mean step a twin printed (step_us=MEAN), run plain: 0 when it did not.
double plain_step_us(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  RunResult r = run(argv, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const size_t at = r.out.find("step_us=");
  return at == std::string::npos ? 0 : std::stod(r.out.substr(at + 8));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Measured {
  double broken_us = 0, fixed_us = 0;
  double saving_us() const { return broken_us - fixed_us; }
};

// Three interleaved plain runs of each twin (`argv_of(variant)`), medians.
Measured measure_twins(const std::function<std::vector<std::string>(const std::string&)>& argv_of,
                       const std::map<std::string, std::string>& env, const std::string& broken_variant,
                       const std::string& fixed_variant) {
  std::vector<double> broken, fixed;
  for (int round = 0; round < 3; ++round) {
    broken.push_back(plain_step_us(argv_of(broken_variant), env));
    fixed.push_back(plain_step_us(argv_of(fixed_variant), env));
  }
  return {median(broken), median(fixed)};
}

// examples/cpp/readback_twins.cu's twins of one mode.
Measured measure(const std::string& mode) {
  return measure_twins(
      [&](const std::string& variant) {
        return std::vector<std::string>{example("readback_twins"), mode, variant, std::to_string(kSteps)};
      },
      fake_runtime_env(), "broken", "fixed");
}

const whatif::FindingPrediction* read_back_prediction(const Analysis& analysis,
                                                      const whatif::Predictions& predictions) {
  for (size_t i = 0; i < analysis.findings.size(); ++i) {
    const Finding& f = analysis.findings[i];
    if (f.phase == Phase::kSteady && f.category == Category::kHiddenSync && f.cause == Cause::kReadBack &&
        predictions.findings[i]) {
      return &*predictions.findings[i];
    }
  }
  ADD_FAILURE() << "no predicted steady read-back among " << analysis.findings.size() << " findings";
  return nullptr;
}

// One attempt: measure the twins, record the broken one, predict. Returns
// what fell short, empty when all held. Setup failures (a run that did not
// exit 0, no trace) are test failures at once; only the timing comparisons
// are returned, so that an attempt a loaded machine disturbed can be made
// again (check()).
std::vector<std::string> attempt(const std::string& mode, bool timeline) {
  std::vector<std::string> short_of;
  const Measured measured = measure(mode);
  // The fake runtime's environment asks for the whole-run GPU timeline;
  // host-only recordings turn it off.
  std::map<std::string, std::string> env = fake_runtime_env();
  if (!timeline) env["SYNCSCOPE_GPU_TIMELINE"] = "0";
  const std::string dir = fresh_dir("what-if-" + mode + (timeline ? "-timeline" : "-host"));
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir, "--", example("readback_twins"), mode, "broken",
                     std::to_string(kSteps)},
                    env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir);
  EXPECT_EQ(traces.size(), 1u);
  if (r.exit_code != 0 || traces.size() != 1) return {};
  const ProcessTrace& trace = traces[0];
  EXPECT_EQ(trace.gpu_activity.empty(), !timeline);
  const Analysis analysis = analyze(trace);
  const whatif::Predictions predictions = whatif::predict_findings(trace, analysis);
  const whatif::FindingPrediction* p = read_back_prediction(analysis, predictions);
  if (p == nullptr) return {};
  const whatif::Prediction& pr = p->prediction;
  std::printf(
      "%s %s: measured %.0f -> %.0f us (saving %.0f); recorded step %.0f, replayed %.0f; predicted saving "
      "%.0f..%.0f us (%s)\n",
      mode.c_str(), timeline ? "timeline" : "host-only", measured.broken_us, measured.fixed_us, measured.saving_us(),
      pr.recorded_step_ns / 1e3, pr.replayed_step_ns / 1e3, pr.saving_low_ns / 1e3, pr.saving_high_ns / 1e3,
      whatif::basis_name(pr.basis));
  EXPECT_EQ(pr.basis, timeline ? whatif::Basis::kMeasured : whatif::Basis::kHostBound);
  const double saving = measured.saving_us() * 1e3;
  if (pr.replay_error() >= 0.10) {
    short_of.push_back("the replay reproduces the recorded steps within 10%: error " +
                       std::to_string(pr.replay_error()));
  }
  if (saving <= 0) {
    short_of.push_back("the fixed twin measured no faster: saving " + std::to_string(saving / 1e3) + " us");
    return short_of;
  }
  // Within 25% of the measured saving: the figure, or the interval's ends.
  if (pr.saving_high_ns < 0.75 * saving || pr.saving_low_ns > 1.25 * saving ||
      (timeline && std::abs(pr.saving_low_ns - saving) > 0.25 * saving)) {
    short_of.push_back("predicted " + std::to_string(pr.saving_low_ns / 1e3) + ".." +
                       std::to_string(pr.saving_high_ns / 1e3) + " us, not within 25% of the measured " +
                       std::to_string(saving / 1e3) + " us");
  }
  return short_of;
}

// The prediction against the measured saving, on the fake runtime, whose
// GPU is the CPU: a machine busy with other work stretches one run's syncs
// and not another's (a GPU-bound step measured 2.5 ms instead of 1.9 once,
// beside a ctest run that was otherwise serial), so a miss is tried again
// (expect_an_attempt_holds); a wrong model misses every time.
void check(const std::string& mode, bool timeline) {
  expect_an_attempt_holds([&] { return attempt(mode, timeline); });
}

// A print(tensor)-like statement (tests/integration/python/print_loop.py):
// three read-backs with 300 µs of Python work and two memsets between
// them. Printing once instead of every step saves the whole statement,
// which every-n-steps predicts; its waits are a small part of it.
const std::string kPrintLoop = SYNCSCOPE_SOURCE_DIR "/tests/integration/python/print_loop.py";
const std::string kStandIns = SYNCSCOPE_SOURCE_DIR "/tests/integration/python";
constexpr int kPrintSteps = 150;
constexpr uint32_t kPrintLine = 49;

std::map<std::string, std::string> python_env() {
  std::map<std::string, std::string> env = fake_runtime_env();
  env["PYTHONPATH"] = kStandIns;
  return env;
}

// A Python twin of this folder's stand-ins, its variant last.
std::function<std::vector<std::string>(const std::string&)> python_twin(const std::string& script, int steps) {
  return [script, steps](const std::string& variant) {
    return std::vector<std::string>{"/usr/bin/env", "python3", script, std::to_string(steps), variant};
  };
}

// The prediction for each of the print's read-backs (one per site, the
// same statement) from a recording of the broken loop; with `line_events`,
// syncscope's line watch on (sitecustomize.py, with fake_monitoring.py
// standing in for sys.monitoring before Python 3.12), else off.
std::vector<whatif::FindingPrediction> print_predictions(bool line_events, double* waits_us) {
  std::map<std::string, std::string> env = python_env();
  if (line_events) {
    env["PRINT_LOOP_LINE_WATCH"] = "1";
  } else {
    env["SYNCSCOPE_LINE_EVENTS"] = "0";
  }
  const std::string dir = fresh_dir(line_events ? "what-if-print-lines" : "what-if-print");
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir, "--", "/usr/bin/env", "python3", kPrintLoop,
                     std::to_string(kPrintSteps), "broken"},
                    env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir);
  if (traces.size() != 1u) {
    ADD_FAILURE() << "one trace expected in " << dir;
    return {};
  }
  const ProcessTrace& trace = traces[0];
  size_t line_event_count = 0;
  for (const Event& e : trace.events) line_event_count += e.api == static_cast<uint16_t>(ApiId::syncscope_python_line);
  if (line_events) {
    EXPECT_GE(line_event_count, 2u * kPrintSteps) << "the loop's and the print's line, each step";
  } else {
    EXPECT_EQ(line_event_count, 0u);
  }
  const Analysis analysis = analyze(trace);
  if (analysis.phases.empty()) {
    ADD_FAILURE() << "no phase";
    return {};
  }
  const whatif::Predictions predictions = whatif::predict_findings(trace, analysis);
  std::vector<whatif::FindingPrediction> out;
  for (size_t i = 0; i < analysis.findings.size(); ++i) {
    const Finding& f = analysis.findings[i];
    if (f.phase != Phase::kSteady || f.cause != Cause::kReadBack) continue;
    EXPECT_EQ(python_line(trace, f.stack_id, kPrintLoop), kPrintLine) << "each read-back is the print line's";
    if (!predictions.findings[i].has_value()) {
      ADD_FAILURE() << "no prediction for finding " << i;
      continue;
    }
    EXPECT_EQ(predictions.findings[i]->fix, whatif::Fix::kEveryNSteps);
    *waits_us = static_cast<double>(f.host_blocked_ns) / static_cast<double>(analysis.phases[0].steps) / 1e3;
    out.push_back(*predictions.findings[i]);
  }
  EXPECT_EQ(out.size(), 3u) << "the formatter's three read-backs, each its own site";
  return out;
}

// One attempt of the print's check: the twins measured plain, then a
// recording without and one with line events. Returns what fell short of
// the timing comparisons (a loaded machine once measured the broken twin's
// step 2.9 ms instead of 2.0, the recordings as usual); what the
// predictions are (a floor or not, which fix) fails the test at once.
std::vector<std::string> print_attempt() {
  std::vector<std::string> short_of;
  const Measured measured = measure_twins(python_twin(kPrintLoop, kPrintSteps), python_env(), "broken", "fixed");
  const double saving = measured.saving_us() * 1e3;
  if (saving <= 0) return {"the fixed twin measured no faster: saving " + std::to_string(saving / 1e3) + " us"};
  double waits_us = 0;
  // The formatter's Python work before its first read-back and after its
  // last is a third of the saving: from the calls alone the prediction is a
  // floor, above the waits; with the line events it is the whole statement.
  for (const whatif::FindingPrediction& p : print_predictions(false, &waits_us)) {
    std::printf(
        "print: measured %.0f -> %.0f us (saving %.0f); from calls alone predicted %.0f us (%s); "
        "its waits %.0f us a step\n",
        measured.broken_us, measured.fixed_us, saving / 1e3, p.prediction.saving_low_ns / 1e3,
        whatif::basis_name(p.prediction.basis), waits_us);
    EXPECT_TRUE(p.floor);
    if (p.prediction.saving_low_ns >= 0.85 * saving) {
      short_of.push_back("from calls alone " + std::to_string(p.prediction.saving_low_ns / 1e3) +
                         " us, not below 85% of the measured " + std::to_string(saving / 1e3) +
                         " us: a floor, the work before and after is not seen");
    }
    if (p.prediction.saving_low_ns <= 2 * waits_us * 1e3) {
      short_of.push_back("from calls alone " + std::to_string(p.prediction.saving_low_ns / 1e3) +
                         " us, not above twice the waits " + std::to_string(waits_us) +
                         " us: the work between the calls is seen");
    }
  }
  for (const whatif::FindingPrediction& p : print_predictions(true, &waits_us)) {
    std::printf("print: measured saving %.0f us; with line events predicted %.0f us (%s)\n", saving / 1e3,
                p.prediction.saving_low_ns / 1e3, whatif::basis_name(p.prediction.basis));
    EXPECT_FALSE(p.floor) << "every execution bounded by its line";
    if (std::abs(p.prediction.saving_low_ns - saving) > 0.25 * saving) {
      short_of.push_back("with line events " + std::to_string(p.prediction.saving_low_ns / 1e3) +
                         " us, not within 25% of the measured " + std::to_string(saving / 1e3) +
                         " us: the statement, every read-back's site alike");
    }
  }
  return short_of;
}

TEST(WhatIf, PrintingEveryStepPredictsTheWholeStatement) { expect_an_attempt_holds(print_attempt); }

// fp16's GradScaler against bf16, which needs none
// (tests/integration/python/scaler_loop.py, the stand-in GradScaler of
// torch/amp/grad_scaler.py): the known site torch-grad-scaler-found-inf
// replays drop-read-back with the scaler's seven launching operations, each
// an operation of the loop's own cost here; its read alone is a few percent
// of what bf16 saves.
const std::string kScalerLoop = SYNCSCOPE_SOURCE_DIR "/tests/integration/python/scaler_loop.py";

std::vector<std::string> scaler_attempt() {
  const Measured measured = measure_twins(python_twin(kScalerLoop, 150), python_env(), "fp16", "bf16");
  const double saving_us = measured.saving_us();
  if (saving_us <= 0) return {"bf16 measured no faster: saving " + std::to_string(saving_us) + " us"};
  const std::string dir = fresh_dir("what-if-scaler");
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--format", "json=" + dir + "/r.json",
                     "--", "/usr/bin/env", "python3", kScalerLoop, "150", "fp16"},
                    python_env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(slurp(dir + "/r.json"), nullptr, false);
  if (report.is_discarded() || !report.contains("processes") || report["processes"].empty()) {
    ADD_FAILURE() << "no JSON report: " << r.err;
    return {};
  }
  const nlohmann::json* read = nullptr;
  for (const nlohmann::json& f : report["processes"][0]["findings"]) {
    if (f["phase"] == "steady" && f["cause"] == "read-back") read = &f;
  }
  if (read == nullptr) {
    ADD_FAILURE() << "no steady read-back: " << report.dump(1);
    return {};
  }
  EXPECT_EQ((*read)["known_site"]["id"], "torch-grad-scaler-found-inf") << read->dump(1);
  EXPECT_EQ((*read)["predicted_fix"], "drop-read-back");
  EXPECT_EQ((*read)["predicted_dropped_operations"], 7) << "the scaler's, counted and said";
  EXPECT_EQ((*read)["predicted_saving_is_floor"], true);
  const double predicted_us =
      (*read)["predicted_saving_us_per_step"].is_number() ? (*read)["predicted_saving_us_per_step"].get<double>() : 0.0;
  const double blocked_us =
      (*read)["host_blocked_us_per_step"].is_number() ? (*read)["host_blocked_us_per_step"].get<double>() : 0.0;
  std::printf("scaler: measured %.0f -> %.0f us (saving %.0f); predicted at least %.0f us; the read blocked %.0f us\n",
              measured.broken_us, measured.fixed_us, saving_us, predicted_us, blocked_us);
  EXPECT_LT(blocked_us * 4, saving_us) << "the read alone is a small part of what bf16 saves";
  if (std::abs(predicted_us - saving_us) > 0.25 * saving_us) {
    return {"predicted " + std::to_string(predicted_us) + " us, not within 25% of the measured " +
            std::to_string(saving_us) + " us"};
  }
  return {};
}

TEST(WhatIf, ASettingThatDropsTheScalerPredictsItsOperations) { expect_an_attempt_holds(scaler_attempt); }

TEST(WhatIf, TheLineWatchStopsAtItsBudget) {
  // Past 250,000 line events (preload/python/line_events.cpp) the callback
  // answers DISABLE, which sys.monitoring takes as "no more events here".
  // Lines this fast fill the thread's ring: they take half of it at most,
  // and none is counted as a lost event.
  const std::string dir = fresh_dir("what-if-line-budget");
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir, "--", "/usr/bin/env", "python3",
                     SYNCSCOPE_SOURCE_DIR "/tests/integration/python/line_budget.py", "260000"},
                    python_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("first_disabled=250000"), std::string::npos) << r.out;
  auto traces = load_traces(dir);
  ASSERT_EQ(traces.size(), 1u);
  size_t lines = 0;
  for (const Event& e : traces[0].events) lines += e.api == static_cast<uint16_t>(ApiId::syncscope_python_line);
  EXPECT_GT(lines, 1000u);
  EXPECT_LE(lines, 250000u);
  EXPECT_EQ(traces[0].events_dropped, 0u);
}

TEST(WhatIf, GpuBoundReadBackWithTheGpuTimeline) { check("gpu", true); }
TEST(WhatIf, HostBoundReadBackWithTheGpuTimeline) { check("host", true); }
TEST(WhatIf, GpuBoundReadBackFromHostTimingAlone) { check("gpu", false); }
TEST(WhatIf, HostBoundReadBackFromHostTimingAlone) { check("host", false); }

}  // namespace
}  // namespace syncscope::testing
