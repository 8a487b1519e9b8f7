// The process facts' keys (trace/process_info_keys.h) are part of the trace
// format: docs/trace-format.md must list every one, with the values it
// names.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "trace/process_info_keys.h"

namespace syncscope {
namespace {

TEST(ProcessInfoKeys, NumberedKeys) {
  EXPECT_EQ(info_key::argv_key(0), "argv0");
  EXPECT_EQ(info_key::argv_key(12), "argv12");
  EXPECT_EQ(info_key::attach_not_seen_key(1), "attach.not_seen.1");
  EXPECT_TRUE(info_key::is_attach_not_seen_key(info_key::attach_not_seen_key(3)));
  EXPECT_FALSE(info_key::is_attach_not_seen_key(info_key::kAttachMode));
}

TEST(ProcessInfoKeys, DocumentedInTheTraceFormat) {
  std::ifstream in(std::string(SYNCSCOPE_SOURCE_DIR) + "/docs/trace-format.md");
  ASSERT_TRUE(in) << "docs/trace-format.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  using namespace info_key;
  for (const char* name : {kArgv, kExe, kCwd, kHostname, kRank, kLocalRank, kWorldSize, kCudaRuntime, kCudaRuntimeReal,
                           kCudaRuntimeSimulated, kUnwinder, kClock, kSyncscopeVersion, kAttachMode, kAttachModeDormant,
                           kAttachModeInjected, kAttachRedirectedSlots, kAttachRedirectedObjects}) {
    EXPECT_NE(doc.find(std::string("`") + name), std::string::npos) << name;
  }
  const std::string first_not_seen = attach_not_seen_key(1);
  EXPECT_NE(doc.find("`" + first_not_seen + "`"), std::string::npos);
}

}  // namespace
}  // namespace syncscope
