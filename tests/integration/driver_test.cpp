// Driver-API interception end to end: driver_tour fetches driver functions
// by direct linkage, dlsym, cuGetProcAddress_v2 and
// cudaGetDriverEntryPoint(ByVersion) from the fake libcuda.so.1 and calls
// each a documented number of times (tests/gpu/driver_tour_expected.json).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/integration/harness.h"
#include "trace/api.h"

namespace syncscope::testing {
namespace {

TEST(Driver, EveryWayOfFetchingADriverFunctionIsRecordedExactly) {
  ProcessTrace t = record_one("driver_tour", {});
  std::ifstream in(SYNCSCOPE_SOURCE_DIR "/tests/gpu/driver_tour_expected.json");
  nlohmann::json expected = nlohmann::json::parse(in);
  for (uint16_t id = 1; id < kApiCount; ++id) {
    if (!api_is_driver(id)) continue;
    std::string name(api_name(id));
    size_t want = expected.contains(name) ? expected[name].get<size_t>() : 0;
    EXPECT_EQ(count_api(t, static_cast<ApiId>(id)), want) << name;
  }
}

// The fake driver implements its calls with the fake runtime's functions,
// as a runtime implements its calls with the driver's: whatever a recorded
// call does inside is not recorded again.
TEST(Driver, CallsMadeInsideARecordedCallAreNotCountedTwice) {
  ProcessTrace t = record_one("driver_tour", {});
  for (ApiId inner : {ApiId::cudaMalloc, ApiId::cudaMemset, ApiId::cudaMemcpy, ApiId::cudaLaunchKernel,
                      ApiId::cudaLaunchKernel_ptsz, ApiId::cudaMallocAsync, ApiId::cudaFreeAsync,
                      ApiId::cudaStreamSynchronize, ApiId::cudaDeviceSynchronize, ApiId::cudaGraphLaunch}) {
    EXPECT_EQ(count_api(t, inner), 0u) << api_name(static_cast<uint16_t>(inner));
  }
  // The runtime calls driver_tour makes itself are still there.
  EXPECT_EQ(count_api(t, ApiId::cudaStreamCreateWithFlags), 1u);
  EXPECT_EQ(count_api(t, ApiId::__cudaLaunchKernel), 1u);  // the launch captured into the graph
}

TEST(Driver, DriverEventsCarryTheirDetails) {
  ProcessTrace t = record_one("driver_tour", {});
  auto launches = events_of(t, ApiId::cuLaunchKernel_ptsz);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_TRUE(launches[0].flags & kFlagPerThreadStream);
  EXPECT_EQ(launches[0].stack_id, 0u);  // launches never capture a stack
  auto copies = events_of(t, ApiId::cuMemcpyDtoH_v2);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0].direction, static_cast<uint8_t>(Direction::kDeviceToHost));
  EXPECT_EQ(copies[0].bytes, sizeof(int));
  EXPECT_NE(copies[0].stack_id, 0u);
  for (ApiId async : {ApiId::cuMemAllocAsync, ApiId::cuMemFreeAsync}) {
    auto e = events_of(t, async);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_TRUE(e[0].flags & kFlagAsync) << api_name(static_cast<uint16_t>(async));
  }
  auto maps = events_of(t, ApiId::cuMemMap);
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_GT(maps[0].bytes, 0u);
  EXPECT_NE(maps[0].stack_id, 0u);
}

// Without the preload the fakes run the same program (the test scaffolding
// itself is exercised in CI).
TEST(Driver, TourRunsOnTheFakesAlone) {
  RunResult r = run({example("driver_tour")}, fake_runtime_env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("driver_tour: done"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace syncscope::testing
