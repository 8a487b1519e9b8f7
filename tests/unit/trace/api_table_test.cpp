#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "trace/api.h"

namespace syncscope {
namespace {

uint16_t id(ApiId api) { return static_cast<uint16_t>(api); }

TEST(ApiTable, NamesAndFamilies) {
  EXPECT_EQ(api_name(id(ApiId::__cudaLaunchKernel)), "__cudaLaunchKernel");
  EXPECT_EQ(api_family(id(ApiId::__cudaLaunchKernel)), ApiFamily::kLaunch);
  EXPECT_EQ(api_name(id(ApiId::cudaStreamSynchronize)), "cudaStreamSynchronize");
  EXPECT_EQ(api_family(id(ApiId::cudaStreamSynchronize)), ApiFamily::kSync);
  EXPECT_EQ(api_name(id(ApiId::cudaMemcpyAsync)), "cudaMemcpyAsync");
  EXPECT_EQ(api_family(id(ApiId::cudaMemcpyAsync)), ApiFamily::kCopy);
  EXPECT_EQ(api_family(id(ApiId::cudaFree)), ApiFamily::kFree);
  EXPECT_EQ(api_family(id(ApiId::cudaHostAlloc)), ApiFamily::kHostAlloc);
  EXPECT_EQ(api_family(id(ApiId::cudaGraphLaunch)), ApiFamily::kGraphLaunch);
  EXPECT_EQ(family_name(ApiFamily::kSync), "sync");
  EXPECT_EQ(family_name(ApiFamily::kHostUnregister), "host-unregister");
}

TEST(ApiTable, UnknownIds) {
  EXPECT_EQ(api_name(0), "unknown");
  EXPECT_EQ(api_name(kApiCount), "unknown");  // a newer recorder's id
  EXPECT_EQ(api_name(60000), "unknown");
  EXPECT_EQ(api_name(0xFFFF), "unknown");
  EXPECT_EQ(api_family(0), ApiFamily::kQuery);
  EXPECT_EQ(api_family(kApiCount), ApiFamily::kQuery);
  EXPECT_EQ(api_family(0xFFFF), ApiFamily::kQuery);
}

TEST(ApiTable, IdsAreStableForTheTraceFormat) {
  // Ids are stored in traces: rows may only be appended. These are version 1's.
  EXPECT_EQ(id(ApiId::cudaDeviceSynchronize), 1);
  EXPECT_EQ(id(ApiId::cudaStreamSynchronize), 2);
  EXPECT_EQ(id(ApiId::cudaMemcpy), 8);
  EXPECT_EQ(id(ApiId::cudaMemcpyAsync), 9);
  EXPECT_EQ(id(ApiId::cudaFree), 19);
  EXPECT_EQ(id(ApiId::__cudaLaunchKernel), 28);
  EXPECT_EQ(id(ApiId::cudaStreamSynchronize_ptsz), 44);
  EXPECT_GE(kApiCount, 45);
}

TEST(ApiTable, NamesAreUniqueAndKnown) {
  std::set<std::string> names;
  for (uint16_t i = 1; i < kApiCount; ++i) {
    std::string name(api_name(i));
    EXPECT_NE(name, "unknown") << i;
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_NE(family_name(api_family(i)), "unknown") << name;
  }
}

TEST(ApiTable, DocumentedTableMatches) {
  // docs/trace-format.md lists every id as "| id | `name` | family |".
  std::ifstream in(std::string(SYNCSCOPE_SOURCE_DIR) + "/docs/trace-format.md");
  ASSERT_TRUE(in) << "docs/trace-format.md missing";
  std::regex row(R"(^\| (\d+) \| `([A-Za-z_0-9]+)` \| ([a-z-]+) \|$)");
  std::map<int, std::pair<std::string, std::string>> documented;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) documented[std::stoi(m[1])] = {m[2], m[3]};
  }
  ASSERT_EQ(documented.size(), kApiCount) << "every id from 0 to " << kApiCount - 1 << " is documented";
  for (uint16_t i = 0; i < kApiCount; ++i) {
    ASSERT_EQ(documented.count(i), 1u) << i;
    EXPECT_EQ(documented[i].first, api_name(i)) << i;
    EXPECT_EQ(documented[i].second, family_name(api_family(i))) << i;
  }
}

}  // namespace
}  // namespace syncscope
