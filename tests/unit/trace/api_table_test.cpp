#include <gtest/gtest.h>

#include <set>
#include <string>

#include "trace/api.h"

namespace syncscope {
namespace {

TEST(ApiTable, NamesAndFamilies) {
  EXPECT_EQ(api_name(static_cast<uint16_t>(ApiId::__cudaLaunchKernel)), "__cudaLaunchKernel");
  EXPECT_EQ(api_family(static_cast<uint16_t>(ApiId::__cudaLaunchKernel)), ApiFamily::kLaunch);
  EXPECT_EQ(api_name(static_cast<uint16_t>(ApiId::cudaStreamSynchronize)), "cudaStreamSynchronize");
  EXPECT_EQ(api_family(static_cast<uint16_t>(ApiId::cudaStreamSynchronize)), ApiFamily::kSync);
  EXPECT_EQ(api_family(static_cast<uint16_t>(ApiId::cudaFree)), ApiFamily::kFree);
  EXPECT_EQ(api_name(0), "unknown");
  EXPECT_EQ(api_name(60000), "unknown");
  EXPECT_EQ(api_family(60000), ApiFamily::kQuery);
}

TEST(ApiTable, IdsAreStableForTheTraceFormat) {
  // Ids are stored in traces: rows may only be appended. These are version 1's.
  EXPECT_EQ(static_cast<uint16_t>(ApiId::cudaDeviceSynchronize), 1);
  EXPECT_EQ(static_cast<uint16_t>(ApiId::cudaStreamSynchronize), 2);
  EXPECT_EQ(static_cast<uint16_t>(ApiId::cudaMemcpy), 8);
  EXPECT_EQ(static_cast<uint16_t>(ApiId::__cudaLaunchKernel), 28);
}

TEST(ApiTable, NamesAreUnique) {
  std::set<std::string> names;
  for (uint16_t id = 1; id < kApiCount; ++id) EXPECT_TRUE(names.insert(std::string(api_name(id))).second);
}

}  // namespace
}  // namespace syncscope
