// The detectors end to end: each CUDA C++ example, recorded against the fake
// runtime through `syncscope run --format json=FILE`, yields its category of
// finding at its own function, in steady state.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/integration/harness.h"

namespace syncscope::testing {
namespace {

nlohmann::json record_json(const std::string& name, const std::vector<std::string>& args) {
  std::string dir = fresh_dir("findings-" + name);
  std::string json_path = dir + "/findings.json";
  // --no-report: nothing on standard output, the JSON file is still written.
  std::vector<std::string> argv = {syncscope_bin(),     "run", "--no-report", "-o", dir + "/t", "--format",
                                   "json=" + json_path, "--",  example(name)};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run(argv, fake_runtime_env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(json_path);
  EXPECT_TRUE(in.good()) << "no JSON written: " << r.err;
  if (!in.good()) return {};
  return nlohmann::json::parse(in);
}

// Steady-state findings of one category.
[[maybe_unused]] std::vector<nlohmann::json> steady(const nlohmann::json& report, const std::string& category) {
  std::vector<nlohmann::json> out;
  for (const auto& p : report["processes"]) {
    for (const auto& f : p["findings"]) {
      if (f["category"] == category && f["phase"] == "steady") out.push_back(f);
    }
  }
  return out;
}

std::string user_function(const nlohmann::json& f) {
  return f["user_frame"].is_null() ? "" : f["user_frame"]["function"].get<std::string>();
}

TEST(Findings, SchemaAndSteps) {
  nlohmann::json r = record_json("hidden_sync_loop", {"40"});
  EXPECT_EQ(r["schema"], "syncscope/findings/v1");
  ASSERT_EQ(r["processes"].size(), 1u);
  const auto& p = r["processes"][0];
  EXPECT_EQ(p["cuda_runtime"], "fake (simulated GPU)");
  EXPECT_TRUE(p["steps"]["detected"].get<bool>());
  EXPECT_EQ(p["steps"]["calls_per_step"], 5);  // 3 launches, the copy, the sync
  EXPECT_GE(p["steps"]["count"].get<int>(), 35);
  EXPECT_GT(p["host_blocked_us_per_step"].get<double>(), 0);
  EXPECT_EQ(p["api_counts"]["cudaStreamSynchronize"], 40);
}

TEST(Findings, HiddenSyncReadBackAtReadLossValue) {
  nlohmann::json r = record_json("hidden_sync_loop", {"40"});
  auto syncs = steady(r, "hidden-sync");
  ASSERT_EQ(syncs.size(), 1u) << r.dump(1);  // nothing else in steady state
  const auto& f = syncs[0];
  EXPECT_EQ(f["cause"], "read-back");
  EXPECT_EQ(f["api_sequence"], "cudaMemcpyAsync(D2H)+cudaStreamSynchronize");
  EXPECT_NEAR(f["per_step"].get<double>(), 1.0, 1e-9);
  EXPECT_NE(user_function(f).find("read_loss_value"), std::string::npos);
  EXPECT_GT(f["host_blocked_us_per_step"].get<double>(), 20.0);  // 3 x 20 µs kernels waited for
  EXPECT_FALSE(f["hint"].get<std::string>().empty());
  EXPECT_FALSE(f["site"]["native"].empty());
  EXPECT_TRUE(steady(r, "allocator-churn").empty());
  EXPECT_TRUE(steady(r, "pageable-copy").empty());
}

TEST(Findings, PageableCopyAtUploadBatch) {
  nlohmann::json r = record_json("pageable_copy_loop", {"40"});
  auto copies = steady(r, "pageable-copy");
  ASSERT_EQ(copies.size(), 1u) << r.dump(1);
  EXPECT_EQ(copies[0]["cause"], "async-requested");
  EXPECT_NE(user_function(copies[0]).find("upload_batch_pageable"), std::string::npos);
  EXPECT_EQ(copies[0]["bytes"].get<uint64_t>(), copies[0]["count"].get<uint64_t>() << 20);
  EXPECT_TRUE(steady(r, "hidden-sync").empty()) << r.dump(1);
}

TEST(Findings, AllocatorChurnAtStepWithFreshBuffer) {
  nlohmann::json r = record_json("alloc_churn_loop", {"40"});
  auto churn = steady(r, "allocator-churn");
  ASSERT_EQ(churn.size(), 2u) << r.dump(1);  // cudaMalloc and cudaFree sites
  for (const auto& f : churn) {
    EXPECT_NE(user_function(f).find("step_with_fresh_buffer"), std::string::npos);
    EXPECT_NEAR(f["per_step"].get<double>(), 1.0, 1e-9);
  }
  auto syncs = steady(r, "hidden-sync");
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0]["cause"], "implicit-free");  // cudaFree synchronises the device
  // Each is predicted as the call dropped (the caching allocator keeps the
  // buffer), a saving that is a floor (whatif::saving_is_a_floor).
  for (const auto& f : {churn[0], churn[1], syncs[0]}) {
    EXPECT_EQ(f["predicted_fix"], "drop-call") << f.dump(1);
    EXPECT_EQ(f["predicted_saving_is_floor"], true) << f.dump(1);
  }
}

TEST(Findings, DefaultStreamSerialization) {
  nlohmann::json r = record_json("compute_stream_copies", {"40"});
  auto found = steady(r, "default-stream");
  bool copy_on_compute = false, legacy = false;
  for (const auto& f : found) {
    copy_on_compute = copy_on_compute || f["cause"] == "copy-on-compute-stream";
    legacy = legacy || f["cause"] == "legacy-stream";
    // The copy moved to a side stream, predicted as a ceiling: the stream
    // switch and events the fix adds are host work the recording does not
    // hold (whatif::saving_is_a_ceiling). A launch on the legacy stream has
    // no stack to replay it by.
    if (f["cause"] != "copy-on-compute-stream") continue;
    EXPECT_EQ(f["predicted_fix"], "side-stream") << f.dump(1);
    EXPECT_EQ(f["predicted_saving_is_ceiling"], true) << f.dump(1);
    EXPECT_EQ(f["predicted_saving_is_floor"], false) << f.dump(1);
  }
  EXPECT_TRUE(copy_on_compute) << r.dump(1);
  EXPECT_TRUE(legacy) << r.dump(1);
  EXPECT_TRUE(steady(r, "hidden-sync").empty()) << r.dump(1);
  ASSERT_FALSE(r["processes"][0]["phases"].empty());
  EXPECT_EQ(r["processes"][0]["phases"][0]["all_fixed"]["predicted_saving_is_ceiling"], true)
      << "every predicted steady finding is a side-stream fix";
}

}  // namespace
}  // namespace syncscope::testing

namespace syncscope::testing {
namespace {

// A Python program calling the runtime: the finding names the Python line,
// with its source text and the Python stack -- whether the call was made
// holding the GIL or, as PyTorch does, with the GIL released.
class PythonAttribution : public ::testing::TestWithParam<bool> {};

TEST_P(PythonAttribution, PythonLineOfAHiddenSync) {
  const bool release_gil = GetParam();
  std::string script = SYNCSCOPE_SOURCE_DIR "/examples/python/ctypes_sync_loop.py";
  std::string dir = fresh_dir("findings-python");
  std::string json_path = dir + "/findings.json";
  std::vector<std::string> argv = {
      syncscope_bin(), "run",     "-o",   dir + "/t", "--format", "json=" + json_path, "--",
      "/usr/bin/env",  "python3", script, "40"};
  if (release_gil) argv.push_back("--release-gil");
  RunResult r = run(argv, fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(json_path);
  nlohmann::json report = nlohmann::json::parse(in);
  auto syncs = steady(report, "hidden-sync");
  ASSERT_EQ(syncs.size(), 1u) << report.dump(1);
  const auto& f = syncs[0];
  EXPECT_EQ(f["cause"], "read-back");
  EXPECT_EQ(f["user_frame"]["language"], "python");
  EXPECT_EQ(f["user_frame"]["file"], script);
  EXPECT_EQ(f["user_frame"]["line"], 34);
  EXPECT_EQ(f["user_frame"]["function"], "read_metric");
  EXPECT_NE(f["user_frame"]["source"].get<std::string>().find("cudaStreamSynchronize"), std::string::npos);
  ASSERT_GE(f["site"]["python"].size(), 3u);
  EXPECT_EQ(f["site"]["python"][1]["function"], "main");
  EXPECT_FALSE(f["site"]["native"].empty());
}

INSTANTIATE_TEST_SUITE_P(GilHeldAndReleased, PythonAttribution, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "GilReleased" : "GilHeld"; });

// SYNCSCOPE_PYTHON=0 keeps native stacks only.
TEST(Findings, PythonFramesCanBeTurnedOff) {
  std::string script = SYNCSCOPE_SOURCE_DIR "/examples/python/ctypes_sync_loop.py";
  std::string dir = fresh_dir("findings-nopython");
  auto env = fake_runtime_env();
  env["SYNCSCOPE_PYTHON"] = "0";
  RunResult r = run(
      {syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", "/usr/bin/env", "python3", script, "10"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_TRUE(traces[0].python_stacks.empty());
  EXPECT_FALSE(traces[0].stacks.empty());
}

// The fix a prediction assumes follows the operation read from the
// symbolised native frames, as the report names it: a value read inside
// at::native::is_nonzero (`if loss > x:`) is decided on the GPU instead
// (compute-on-gpu: its read-back goes, the statement stays); one read
// inside at::native::nonzero_cuda (x[mask]) takes a fixed shape (replayed
// alike, a floor: nonzero's own work goes too); the same read-back without
// PyTorch's frame is read every N steps (its statement goes).
TEST(Findings, AReadBacksOperationPicksTheFixItsPredictionAssumes) {
  struct Expected {
    const char* variant;
    const char* operation;
    const char* fix;
    bool floor;
  };
  for (const Expected& e : {Expected{"bool", "bool", "compute-on-gpu", false},
                            Expected{"mask", "nonzero", "fixed-shape", true},
                            Expected{"broken", "unknown", "every-n-steps", true}}) {
    SCOPED_TRACE(e.variant);
    nlohmann::json r = record_json("readback_twins", {"host", e.variant, "60"});
    const std::vector<nlohmann::json> syncs = steady(r, "hidden-sync");
    ASSERT_EQ(syncs.size(), 1u) << r.dump(1).substr(0, 2000);
    const nlohmann::json& f = syncs[0];
    EXPECT_EQ(f["operation"], e.operation);
    EXPECT_EQ(f["predicted_fix"], e.fix);
    EXPECT_EQ(f["predicted_saving_is_floor"], e.floor);
    EXPECT_GT(f["predicted_saving_us_per_step"].get<double>(), 0.0);
  }
}

}  // namespace
}  // namespace syncscope::testing
