// The one-line wording the CI formats share (report/finding_text.h): the GPU
// cost rides along when the timeline measured it.
#include "report/finding_text.h"

#include <gtest/gtest.h>

namespace syncscope {
namespace {

ReportedFinding sync_finding() {
  ReportedFinding r;
  Finding& f = r.finding;
  f.category = Category::kHiddenSync;
  f.api_sequence = "cudaMemcpyAsync(D2H)+cudaStreamSynchronize";
  f.count = 40;
  f.per_step = 1.0;
  f.blocked_ns_per_step = 52000;
  f.step_share = 0.12;
  return r;
}

TEST(FindingText, SummaryWithoutATimeline) {
  EXPECT_EQ(finding_summary(sync_finding()),
            "cudaMemcpyAsync(D2H)+cudaStreamSynchronize: 40 calls, 1.00 per step, 52.0 µs host blocked per step (12% "
            "of step time)");
}

TEST(FindingText, SummaryCarriesTheGpuIdle) {
  ReportedFinding r = sync_finding();
  r.finding.gpu_measured = true;
  r.finding.gpu_idle_ns_per_step = 431000;
  r.finding.gpu_idle_share = 0.06;
  EXPECT_NE(finding_summary(r).find("; GPU idle per step 431.0 µs (6% of step time)"), std::string::npos)
      << finding_summary(r);
}

TEST(FindingText, DefaultStreamCopiesCarryTheirOverlap) {
  ReportedFinding r = sync_finding();
  r.finding.category = Category::kDefaultStream;
  r.finding.gpu_measured = true;
  r.finding.gpu_copy_ns = 1000000;
  r.finding.gpu_copy_overlap_ns = 0;
  r.finding.gpu_serialized_ns_per_step = 310000;
  EXPECT_EQ(gpu_cost_text(r.finding),
            "copies 0% overlapped with kernels on other streams, 310.0 µs serialised per step");
}

}  // namespace
}  // namespace syncscope
