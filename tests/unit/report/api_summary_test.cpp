#include "detectors/api_summary.h"

#include <gtest/gtest.h>

#include "tests/unit/report/report_test_util.h"

namespace syncscope::testing {
namespace {

TEST(ApiSummary, TotalsPerApiAndStack) {
  ApiSummary s = summarize(sample_trace());
  EXPECT_EQ(s.events, 6u);
  EXPECT_EQ(s.launches, 3u);
  ASSERT_EQ(s.apis.size(), 3u);
  // Ranked by host time: syncs (200 µs), copy (120 µs), launches (15 ns).
  EXPECT_EQ(s.apis[0].api, static_cast<uint16_t>(ApiId::cudaStreamSynchronize));
  EXPECT_EQ(s.apis[0].calls, 2u);
  EXPECT_EQ(s.apis[0].total_ns, 200000u);
  EXPECT_EQ(s.apis[0].max_ns, 100000u);
  EXPECT_EQ(s.apis[1].api, static_cast<uint16_t>(ApiId::cudaMemcpyAsync));
  EXPECT_EQ(s.apis[1].bytes, 1u << 20);
  EXPECT_EQ(s.apis[1].copies_by_host_mem.at(static_cast<uint8_t>(HostMem::kPageable)), 1u);
  EXPECT_EQ(s.apis[2].calls, 3u);
  ASSERT_EQ(s.stacks.size(), 2u);
  EXPECT_EQ(s.stacks[0].stack_id, 1u);
  EXPECT_EQ(s.stacks[0].calls, 2u);
  EXPECT_EQ(s.wall_ns, 520000u - 1000u);
}

TEST(ApiSummary, EmptyTrace) {
  ApiSummary s = summarize(ProcessTrace{});
  EXPECT_EQ(s.events, 0u);
  EXPECT_EQ(s.wall_ns, 0u);
  EXPECT_TRUE(s.apis.empty());
}

}  // namespace
}  // namespace syncscope::testing
