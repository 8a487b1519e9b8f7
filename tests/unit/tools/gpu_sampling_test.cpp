#include "tools/gpu_sampling.h"

#include <gtest/gtest.h>

namespace syncscope {
namespace {

TEST(GpuSampling, ValuesBecomeTheRecordersSetting) {
  std::string error;
  EXPECT_EQ(gpu_sampling_setting("sampled", &error), "");
  EXPECT_EQ(gpu_sampling_setting("", &error), "");
  EXPECT_EQ(gpu_sampling_setting("full", &error), "full");
  EXPECT_EQ(gpu_sampling_setting("2s/30s", &error), "2000/30000");
  EXPECT_EQ(gpu_sampling_setting("500ms/5", &error), "500/5000");
}

TEST(GpuSampling, RefusesWhatIsNotAWindowAndPeriod) {
  for (const char* bad : {"on", "1", "2s", "2s/", "/10s", "10s/2s", "5s/5s", "0/10s", "1s/2d", "1s/10s/3s"}) {
    std::string error;
    EXPECT_FALSE(gpu_sampling_setting(bad, &error).has_value()) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
  std::string error;
  gpu_sampling_setting("10s/2s", &error);
  EXPECT_NE(error.find("shorter than the period"), std::string::npos) << error;
}

}  // namespace
}  // namespace syncscope
