// Finding causes: the strings are part of the JSON report (baselines and
// scripts match on them), so each one is pinned here, and the documented
// list in docs/findings-schema.md must name every one.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "detectors/cause.h"

namespace syncscope {
namespace {

const std::vector<std::pair<Cause, std::string>>& every_cause() {
  static const std::vector<std::pair<Cause, std::string>> causes = {
      {Cause::kReadBack, "read-back"},
      {Cause::kExplicit, "explicit"},
      {Cause::kImplicitFree, "implicit-free"},
      {Cause::kSyncCopy, "sync-copy"},
      {Cause::kSyncMemset, "sync-memset"},
      {Cause::kCopyThenSync, "copy-then-sync"},
      {Cause::kAsyncRequested, "async-requested"},
      {Cause::kSynchronous, "synchronous"},
      {Cause::kFreeBurst, "free-burst"},
      {Cause::kGrowing, "growing"},
      {Cause::kVmm, "vmm"},
      {Cause::kPinnedHost, "pinned-host"},
      {Cause::kChurn, "churn"},
      {Cause::kCopyOnComputeStream, "copy-on-compute-stream"},
      {Cause::kLegacyStream, "legacy-stream"},
  };
  return causes;
}

TEST(Cause, NamesAreTheReportsStrings) {
  for (const auto& [cause, name] : every_cause()) EXPECT_EQ(cause_name(cause), name);
}

TEST(Cause, EveryCauseIsListedOnceWithItsOwnName) {
  // The list above ends with the enum's last value: a cause added to the
  // enum but not here shows up as a gap in the numbering.
  std::set<std::string> names;
  for (size_t i = 0; i < every_cause().size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(every_cause()[i].first), i) << every_cause()[i].second;
    EXPECT_TRUE(names.insert(every_cause()[i].second).second) << every_cause()[i].second;
  }
  EXPECT_EQ(static_cast<size_t>(Cause::kLegacyStream) + 1, every_cause().size());
  EXPECT_STREQ(cause_name(static_cast<Cause>(every_cause().size())), "unknown");
}

TEST(Cause, DocumentedInTheFindingsSchema) {
  std::ifstream in(std::string(SYNCSCOPE_SOURCE_DIR) + "/docs/findings-schema.md");
  ASSERT_TRUE(in) << "docs/findings-schema.md";
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  size_t causes = doc.find("## Causes");
  ASSERT_NE(causes, std::string::npos);
  doc = doc.substr(causes);
  for (const auto& [cause, name] : every_cause()) {
    EXPECT_NE(doc.find("`" + name + "`"), std::string::npos) << name << " is not in docs/findings-schema.md";
  }
}

}  // namespace
}  // namespace syncscope
