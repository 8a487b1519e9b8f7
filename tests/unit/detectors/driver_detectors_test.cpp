// Driver-API events flow into the same detectors as their runtime twins.
#include <gtest/gtest.h>

#include "detectors/detectors.h"
#include "tests/unit/detectors/steps_by_time.h"
#include "tests/unit/detectors/synthetic.h"

namespace syncscope::testing {
namespace {

constexpr uint32_t kMapSite = 21, kUnmapSite = 22, kItemSite = 23;

const Finding* find_api(const std::vector<Finding>& fs, const std::string& api) {
  for (const Finding& f : fs) {
    if (f.api == api && f.phase == Phase::kSteady) return &f;
  }
  return nullptr;
}

// expandable_segments + empty_cache(): map on allocation, unmap on release.
TEST(DriverEvents, VirtualMemoryRemapsAreAllocatorChurn) {
  Stream s;
  for (int step = 0; step < 10; ++step) {
    s.call(ApiId::cuLaunchKernel, 3000).dst = 7;  // a Triton kernel
    s.call(ApiId::cuMemCreate, 5000, 0, kMapSite).bytes = 2 << 20;
    s.call(ApiId::cuMemMap, 5000, 0, kMapSite).bytes = 2 << 20;
    s.call(ApiId::cuMemSetAccess, 5000, 0, kMapSite).bytes = 2 << 20;
    s.call(ApiId::cuMemUnmap, 5000, 0, kUnmapSite).bytes = 2 << 20;
    s.call(ApiId::cuMemRelease, 5000, 0, kUnmapSite);
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  ASSERT_TRUE(steps.detected);
  std::vector<Finding> fs = detect_allocator_churn(s.events(), steps);
  for (const char* api : {"cuMemCreate", "cuMemMap", "cuMemSetAccess", "cuMemUnmap", "cuMemRelease"}) {
    const Finding* f = find_api(fs, api);
    ASSERT_NE(f, nullptr) << api;
    EXPECT_EQ(f->cause, Cause::kVmm) << api;
    EXPECT_NE(f->hint.find("expandable"), std::string::npos);
  }
  // Unmapping is not a device-wide sync the way cudaFree is.
  EXPECT_TRUE(detect_hidden_syncs(s.events(), steps).empty());
}

// PyTorch's default stream is the legacy stream (handle 0): stream-ordered
// allocations there are still asynchronous, neither churn nor implicit syncs.
TEST(DriverEvents, StreamOrderedAllocationsOnTheLegacyStreamAreClean) {
  Stream s;
  for (int step = 0; step < 10; ++step) {
    s.launch(1, 0);
    s.call(ApiId::cudaMallocAsync, 1000, 0, kMapSite).flags |= kFlagAsync;
    s.call(ApiId::cuMemAllocAsync, 1000, 0, kMapSite).flags |= kFlagAsync;
    s.call(ApiId::cudaFreeAsync, 1000, 0, kUnmapSite).flags |= kFlagAsync;
    s.call(ApiId::cuMemFreeAsync, 1000, 0, kUnmapSite).flags |= kFlagAsync;
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  EXPECT_TRUE(detect_allocator_churn(s.events(), steps).empty());
  EXPECT_TRUE(detect_hidden_syncs(s.events(), steps).empty());
}

TEST(DriverEvents, DriverReadBackAndContextSyncAreHiddenSyncs) {
  Stream s;
  for (int step = 0; step < 10; ++step) {
    s.call(ApiId::cuLaunchKernelEx, 3000).dst = 9;
    s.copy(ApiId::cuMemcpyDtoHAsync_v2, Direction::kDeviceToHost, HostMem::kPinned, 4, true, kItemSite);
    s.call(ApiId::cuCtxSynchronize, 40000, 0, kItemSite);
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  ASSERT_TRUE(steps.detected);
  std::vector<Finding> fs = detect_hidden_syncs(s.events(), steps);
  const Finding* f = find_api(fs, "cuCtxSynchronize");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->cause, Cause::kReadBack);
  EXPECT_EQ(f->api_sequence, "cuMemcpyDtoHAsync_v2(D2H)+cuCtxSynchronize");
}

TEST(DriverEvents, TritonLaunchesMakeTheStepPattern) {
  Stream s;
  for (int step = 0; step < 12; ++step) {
    s.call(ApiId::cuLaunchKernel, 3000).dst = 1;
    s.call(ApiId::cuLaunchKernelEx, 3000).dst = 2;
    s.call(ApiId::cuGraphLaunch, 3000).dst = 3;
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  ASSERT_TRUE(steps.detected);
  EXPECT_EQ(steps.period_calls, 3u);
}

}  // namespace
}  // namespace syncscope::testing
