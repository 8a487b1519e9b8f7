// The program's own structure under `syncscope run` (issue 11), end to end on
// the fake runtime: optimizer steps and backward passes marked through
// syncscope's sitecustomize (with a stand-in torch), the user's
// sitecustomize still run, and a sync made on a thread without Python
// attributed to the line that waited.
#include <gtest/gtest.h>

#include "detectors/analysis.h"
#include "harness.h"
#include "trace/api.h"

namespace syncscope::testing {
namespace {

const std::string kScript = SYNCSCOPE_SOURCE_DIR "/tests/integration/python/accumulation_loop.py";
const std::string kStandIns = SYNCSCOPE_SOURCE_DIR "/tests/integration/python";

ProcessTrace record(const std::string& name, std::map<std::string, std::string> env, bool worker, bool many = false) {
  std::string dir = fresh_dir(name);
  env.merge(fake_runtime_env());
  env["PYTHONPATH"] = kStandIns;
  std::vector<std::string> argv = {syncscope_bin(), "run",     "--no-report", "-o", dir + "/t", "--",
                                   "/usr/bin/env",  "python3", kScript,       "30"};
  if (worker) argv.push_back(SYNCSCOPE_FRAMELESS_WORKER);
  if (many) argv.push_back("many");
  RunResult r = run(argv, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("user sitecustomize ran"), std::string::npos) << "the user's sitecustomize was shadowed:\n"
                                                                     << r.err;
  auto traces = load_traces(dir + "/t");
  EXPECT_EQ(traces.size(), 1u);
  return traces.empty() ? ProcessTrace{} : traces[0];
}

const Finding* steady_at(const Analysis& a, const ProcessTrace& t, uint32_t line) {
  for (const Finding& f : a.findings) {
    if (f.phase == Phase::kSteady && python_line(t, f.stack_id, kScript) == line) return &f;
  }
  return nullptr;
}

TEST(ProgramStructure, OptimizerStepsAreTheSteps) {
  ProcessTrace t = record("structure-markers", {}, false);
  size_t markers = 0;
  for (const Event& e : t.events) {
    if (e.api != static_cast<uint16_t>(ApiId::syncscope_optimizer_step)) continue;
    ++markers;
    EXPECT_EQ(python_line(t, e.stack_id, kScript), 44u) << "the optimizer.step() line";
    auto native = t.stacks.find(e.stack_id);
    EXPECT_TRUE(native == t.stacks.end() || native->second.empty())
        << "a marker's native stack is always ctypes' way in: not unwound";
  }
  EXPECT_EQ(markers, 30u);
  Analysis a = analyze(t);
  ASSERT_FALSE(a.phases.empty());
  EXPECT_EQ(a.phases[0].source, StepSource::kOptimizerStep);
  EXPECT_EQ(a.phases[0].name, "train");
  EXPECT_EQ(a.phases[0].steps, 28u);  // the first two are warm-up
  const Finding* read_back = steady_at(a, t, 26);
  ASSERT_NE(read_back, nullptr);
  EXPECT_DOUBLE_EQ(read_back->per_step, 1.0);  // exactly one per optimizer step, whatever the micro-batches
}

TEST(ProgramStructure, MarkersCanBeTurnedOff) {
  ProcessTrace t = record("structure-no-markers", {{"SYNCSCOPE_STEP_MARKERS", "0"}}, false);
  for (const Event& e : t.events) EXPECT_NE(e.api, static_cast<uint16_t>(ApiId::syncscope_optimizer_step));
  Analysis a = analyze(t);
  EXPECT_TRUE(a.phases.empty() || a.phases[0].source != StepSource::kOptimizerStep);
}

TEST(ProgramStructure, FramelessThreadSyncNamesTheWaitingLine) {
  ProcessTrace t = record("structure-waiter", {}, true);
  size_t waits = 0;
  for (const Event& e : t.events) {
    if (e.api == static_cast<uint16_t>(ApiId::syncscope_gil_wait)) {
      ++waits;
      EXPECT_EQ(python_line(t, e.stack_id, kScript), 43u);
    }
  }
  EXPECT_GE(waits, 25u) << "one wait per step, but for the ones before the GIL hooks were in place";
  Analysis a = analyze(t);
  const Finding* worker_sync = nullptr;
  for (const Finding& f : a.findings) {
    if (f.phase == Phase::kSteady && f.waiter_stack_id != 0) worker_sync = &f;
  }
  ASSERT_NE(worker_sync, nullptr) << "the worker thread's sync is attributed to a waiting line";
  EXPECT_EQ(python_line(t, worker_sync->waiter_stack_id, kScript), 43u);
  EXPECT_NE(worker_sync->tid, worker_sync->waiter_tid);
  EXPECT_EQ(python_line(t, worker_sync->stack_id, kScript), 0u) << "its own stack has no Python frames";
  EXPECT_NEAR(worker_sync->per_step, 2.0, 0.1);
}

// Forty syncs inside one GIL release, on the thread that released it: each
// owes the Python line, completed when the GIL is taken back. (A short list
// of owed events once pushed the overflow without Python frames: the syncs
// and cuMem* calls of empty_cache() with expandable segments had no line.)
TEST(ProgramStructure, EveryCallOfALongGilReleaseGetsItsLine) {
  ProcessTrace t = record("structure-many", {}, true, true);
  size_t main_thread_syncs = 0, at_line = 0;
  for (const Event& e : t.events) {
    if (e.api != static_cast<uint16_t>(ApiId::cudaStreamSynchronize) || e.tid != t.events.front().tid) continue;
    ++main_thread_syncs;
    at_line += python_line(t, e.stack_id, kScript) == 46;
  }
  EXPECT_EQ(at_line, 40u * 30u);
  EXPECT_EQ(main_thread_syncs, at_line + 30u) << "and the read-back's sync, once per step";
}

// word_language_model's shape (issue 23): no torch.optim, loss.backward()
// every batch with its pass queued by a persistent worker thread, a
// read-back every batch, then an evaluation pass without backward.
const std::string kManualScript = SYNCSCOPE_SOURCE_DIR "/tests/integration/python/manual_update_loop.py";
constexpr uint32_t kBackwardLine = 41, kTrainItemLine = 45, kEvalItemLine = 49;

ProcessTrace record_manual_update(const std::string& name, const std::vector<std::string>& options,
                                  std::map<std::string, std::string> env = {}) {
  std::string dir = fresh_dir(name);
  env.merge(fake_runtime_env());
  env["PYTHONPATH"] = kStandIns;
  env["SYNCSCOPE_GPU_TIMELINE"] = "0";  // a GPU timeline keeps every launch: the default recording aggregates
  std::vector<std::string> argv = {syncscope_bin(), "run", "--no-report", "-o", dir + "/t"};
  argv.insert(argv.end(), options.begin(), options.end());
  for (const char* arg : {"--", "/usr/bin/env", "python3"}) argv.emplace_back(arg);
  for (const std::string& arg :
       {kManualScript, std::string("60"), std::string("40"), std::string(SYNCSCOPE_FRAMELESS_WORKER),
        std::string(SYNCSCOPE_EXAMPLES_DIR) + "/liblaunch_burst.so"})
    argv.push_back(arg);
  RunResult r = run(argv, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  EXPECT_EQ(traces.size(), 1u);
  return traces.empty() ? ProcessTrace{} : traces[0];
}

const Finding* steady_at_line(const Analysis& a, const ProcessTrace& t, uint32_t line) {
  for (const Finding& f : a.findings) {
    if (f.phase == Phase::kSteady && python_line(t, f.stack_id, kManualScript) == line) return &f;
  }
  return nullptr;
}

// One step per batch, the read-back once per step, the evaluation a steady
// "eval" phase, in the default (aggregated) recording as with --detail full.
// Without the backward marker the aggregated recording's runs of the
// worker's memsets span several passes and the steps were lost.
void expect_manual_update_structure(const std::string& detail) {
  SCOPED_TRACE(detail);
  ProcessTrace t = record_manual_update(
      "structure-backward-" + detail,
      detail == "full" ? std::vector<std::string>{"--detail", "full"} : std::vector<std::string>{});
  EXPECT_EQ(t.info("trace.detail"), detail);
  size_t markers = 0;
  for (const Event& e : t.events) {
    if (e.api != static_cast<uint16_t>(ApiId::syncscope_backward_begin)) continue;
    ++markers;
    EXPECT_EQ(python_line(t, e.stack_id, kManualScript), kBackwardLine)
        << "the loss.backward() line, not the one inside";
  }
  EXPECT_EQ(markers, 60u) << "one per loss.backward(), none for the backward() inside each pass";
  if (detail == "aggregated") {
    EXPECT_GT(t.launch_runs, 0u) << "the passes were folded into runs";
  }
  Analysis a = analyze(t);
  ASSERT_FALSE(a.phases.empty());
  EXPECT_EQ(a.phases[0].source, StepSource::kBackward);
  EXPECT_EQ(a.phases[0].name, "train");
  EXPECT_EQ(a.phases[0].steps, 57u);  // two warm-up steps; the last pass has no next start
  const Finding* item = steady_at_line(a, t, kTrainItemLine);
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->phase_index, 0);
  EXPECT_DOUBLE_EQ(item->per_step, 1.0);
  const Finding* eval = steady_at_line(a, t, kEvalItemLine);
  ASSERT_NE(eval, nullptr) << "the evaluation is a steady phase, not teardown";
  ASSERT_GT(eval->phase_index, 0);
  EXPECT_EQ(a.phases[static_cast<size_t>(eval->phase_index)].name, "eval");
  EXPECT_NEAR(eval->per_step, 1.0, 0.1);
}

TEST(ProgramStructure, BackwardMarkersMakeTheStepsOfAManualUpdate) {
  expect_manual_update_structure("aggregated");
  expect_manual_update_structure("full");
}

TEST(ProgramStructure, BackwardMarkersCanBeTurnedOff) {
  ProcessTrace t = record_manual_update("structure-backward-off", {}, {{"SYNCSCOPE_STEP_MARKERS", "0"}});
  for (const Event& e : t.events) EXPECT_NE(e.api, static_cast<uint16_t>(ApiId::syncscope_backward_begin));
}

}  // namespace
}  // namespace syncscope::testing
