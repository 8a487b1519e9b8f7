// A user's own AddressSanitizer build under `syncscope run` (issue 15): its
// libasan must come first in LD_PRELOAD, before the preload, or ASan stops
// the program at start; with it first, the program runs as without
// syncscope (output, status) and its hidden sync is found.
#include <gtest/gtest.h>

#include <string>

#include "tests/integration/harness.h"
#include "trace/api.h"
#include "trace/reader.h"

namespace syncscope::testing {
namespace {

TEST(SanitizerPrograms, AnAsanBuiltProgramRunsAndIsRecorded) {
  auto env = fake_runtime_env();
  env["ASAN_OPTIONS"] = "halt_on_error=1:detect_leaks=0";
  RunResult plain = run({SYNCSCOPE_ASAN_PROGRAM, "40"}, env);
  ASSERT_EQ(plain.exit_code, 7) << plain.err;

  std::string dir = fresh_dir("asan-program");
  RunResult r = run({syncscope_bin(), "run", "-o", dir + "/t", "--", SYNCSCOPE_ASAN_PROGRAM, "40"}, env);
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_EQ(r.err.find("ASan runtime does not come first"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find(plain.out), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("read_back"), std::string::npos) << "the hidden sync's site\n" << r.out;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(count_api(traces[0], ApiId::cudaStreamSynchronize), 40u);
}

// Without the reordering, the same program under the preload is stopped by
// ASan: what the test above guards against.
TEST(SanitizerPrograms, WithThePreloadFirstAsanRefusesToStart) {
  auto env = fake_runtime_env();
  env["LD_PRELOAD"] = preload_path();
  env["SYNCSCOPE_OUTPUT_DIR"] = fresh_dir("asan-refused");
  RunResult r = run({SYNCSCOPE_ASAN_PROGRAM, "5"}, env);
  EXPECT_NE(r.exit_code, 7);
  EXPECT_NE(r.err.find("ASan runtime does not come first"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace syncscope::testing
