// NVTX ranges end to end on the fake runtime (docs/nvtx.md): `syncscope
// run` makes the preload the NVTX injection library, examples/cpp/
// nvtx_phases's ranges (core and domain) become events with their names and
// depths, and its outermost range of the most frequent name makes the steps
// and names the phase.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "detectors/analysis.h"
#include "harness.h"
#include "trace/api.h"

namespace syncscope::testing {
namespace {

TEST(Nvtx, RangesAreRecordedWithNameAndDepth) {
  ProcessTrace t = record_one("nvtx_phases", {"40"});
  std::map<std::pair<std::string, uint64_t>, int> seen;  // (name, depth) -> ranges
  for (const Event& e : events_of(t, ApiId::syncscope_nvtx_range)) {
    auto name = t.strings.find(static_cast<uint32_t>(e.dst));
    ASSERT_NE(name, t.strings.end()) << "a range whose name was not written";
    EXPECT_LE(e.start_ns, e.end_ns);
    ++seen[{name->second, e.bytes}];
  }
  EXPECT_EQ((seen[{"train_step", 0}]), 40);
  EXPECT_EQ((seen[{"forward", 1}]), 40);
  EXPECT_EQ((seen[{"backward", 1}]), 40);
  EXPECT_EQ((seen[{"eval", 0}]), 8);  // a domain range (nvtxDomainRangePushEx)
  EXPECT_EQ(seen.size(), 4u);
}

TEST(Nvtx, TheMostFrequentOutermostRangeMakesTheSteps) {
  ProcessTrace t = record_one("nvtx_phases", {"40"});
  Analysis a = analyze(t);
  ASSERT_FALSE(a.phases.empty());
  EXPECT_EQ(a.phases[0].source, StepSource::kNvtxRange);
  EXPECT_EQ(a.phases[0].name, "train_step");
  EXPECT_EQ(a.phases[0].steps, 38u);  // two warm-up steps
  EXPECT_EQ(a.phases[0].calls_per_step, 5u);
  // The eval's sync recurs every 5th step, found as such.
  bool sync_every_5 = false;
  for (const Finding& f : a.findings) {
    sync_every_5 |= f.phase == Phase::kSteady && f.api == "cudaStreamSynchronize" && f.every_n_steps == 5;
  }
  EXPECT_TRUE(sync_every_5);
}

TEST(Nvtx, AnotherToolsInjectionIsLeftInPlace) {
  // With NVTX_INJECTION64_PATH already set, syncscope keeps it: no ranges.
  std::string dir = fresh_dir("nvtx-other-tool");
  auto env = fake_runtime_env();
  env["NVTX_INJECTION64_PATH"] = "/nonexistent/libother-tool.so";
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", example("nvtx_phases"), "10"}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_TRUE(events_of(traces[0], ApiId::syncscope_nvtx_range).empty());
}

}  // namespace
}  // namespace syncscope::testing
