// Every event a hook records is accounted for (issue 15): written, or
// counted as dropped with its reason, never lost silently. The target here
// stops while its rings hold everything it did (a 60 s flush period never
// came), and the last drain has no time at all (SYNCSCOPE_EXIT_FLUSH_MS=0).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/integration/harness.h"
#include "trace/reader.h"

namespace syncscope::testing {
namespace {

struct Outcome {
  RunResult result;
  ProcessTrace trace;
};

Outcome record(const std::string& name, const std::string& exit_flush_ms, const std::string& max_size = "") {
  std::string dir = fresh_dir(name);
  auto env = fake_runtime_env();
  env["SYNCSCOPE_GPU_TIMELINE"] = "0";
  if (!exit_flush_ms.empty()) env["SYNCSCOPE_EXIT_FLUSH_MS"] = exit_flush_ms;
  Outcome o;
  std::vector<std::string> argv = {syncscope_bin(), "run", "--no-report", "--flush-ms", "60000", "--ring-events",
                                   "262144", "-o", dir + "/t"};
  if (!max_size.empty()) argv.insert(argv.end(), {"--max-trace-size", max_size});
  argv.insert(argv.end(), {"--", example("hidden_sync_loop"), "4000"});
  o.result = run(argv, env);
  auto traces = load_traces(dir + "/t");
  EXPECT_EQ(traces.size(), 1u);
  if (!traces.empty()) o.trace = std::move(traces[0]);
  o.result.out += RunResult(run({syncscope_bin(), "report", dir + "/t"}, env)).out;
  return o;
}

TEST(EventAccounting, EventsLeftAtExitAreCountedNotLost) {
  Outcome whole = record("accounting-whole", "");
  ASSERT_EQ(whole.result.exit_code, 0) << whole.result.err;
  ASSERT_TRUE(whole.trace.complete) << whole.trace.truncation;
  EXPECT_EQ(whole.trace.events_dropped, 0u);
  const size_t recorded = whole.trace.events.size();
  EXPECT_GT(recorded, 20000u) << "5 calls a step";

  Outcome cut = record("accounting-cut", "0");
  ASSERT_EQ(cut.result.exit_code, 0) << cut.result.err;
  ASSERT_TRUE(cut.trace.complete) << "the end record is written although the events were not: "
                                  << cut.trace.truncation;
  EXPECT_GT(cut.trace.events_unwritten_at_exit, 0u);
  EXPECT_EQ(cut.trace.events_lost_no_memory, 0u);
  EXPECT_EQ(cut.trace.events.size() + cut.trace.events_dropped, recorded)
      << "written " << cut.trace.events.size() << " + dropped " << cut.trace.events_dropped;
  EXPECT_NE(cut.result.err.find("counted, not written"), std::string::npos) << cut.result.err;
  EXPECT_NE(cut.result.out.find("left at exit: " + std::to_string(cut.trace.events_unwritten_at_exit)),
            std::string::npos)
      << cut.result.out;
}

// --max-trace-size: past the limit events are counted, not written; the
// file stays near the limit and the report says when it was reached.
TEST(EventAccounting, TraceSizeLimitCountsTheRest) {
  Outcome whole = record("accounting-unlimited", "");
  ASSERT_TRUE(whole.trace.complete) << whole.trace.truncation;
  const size_t recorded = whole.trace.events.size();
  Outcome limited = record("accounting-limited", "", "1M");
  ASSERT_EQ(limited.result.exit_code, 0) << limited.result.err;
  ASSERT_TRUE(limited.trace.complete) << limited.trace.truncation;
  EXPECT_GT(limited.trace.events_over_size_limit, 0u);
  // The limit, and the few records that follow the last events (drops, end).
  EXPECT_LE(std::filesystem::file_size(limited.trace.file), (size_t{1} << 20) + 4096);
  EXPECT_EQ(limited.trace.events.size() + limited.trace.events_dropped, recorded);
  EXPECT_NE(limited.result.out.find("trace size limit of 1.00 MiB reached"), std::string::npos) << limited.result.out;
  EXPECT_NE(limited.result.out.find("past the trace size limit (--max-trace-size): " +
                                    std::to_string(limited.trace.events_over_size_limit)),
            std::string::npos)
      << limited.result.out;
}

}  // namespace
}  // namespace syncscope::testing
