#include "preload/core/config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace syncscope::preload {
namespace {

TEST(Config, DefaultsWithoutEnvironment) {
  for (const char* k : {"SYNCSCOPE_DISABLE", "SYNCSCOPE_OUTPUT_DIR", "SYNCSCOPE_FLUSH_MS", "SYNCSCOPE_RING_EVENTS",
                        "SYNCSCOPE_STACKS", "SYNCSCOPE_LOG", "SYNCSCOPE_CLOCK", "SYNCSCOPE_DORMANT"}) {
    unsetenv(k);
  }
  Config c = config_from_environment();
  EXPECT_TRUE(c.enabled);
  EXPECT_FALSE(c.dormant);
  EXPECT_STREQ(c.output_dir, "syncscope-trace");
  EXPECT_EQ(c.flush_ms, 50u);
  EXPECT_EQ(c.ring_events, 16384u);
  EXPECT_TRUE(c.stacks);
  EXPECT_EQ(c.log_level, 1);
}

TEST(Config, ParsesAndValidates) {
  setenv("SYNCSCOPE_OUTPUT_DIR", "/tmp/x", 1);
  setenv("SYNCSCOPE_FLUSH_MS", "200", 1);
  setenv("SYNCSCOPE_RING_EVENTS", "1000", 1);  // rounded up to a power of two
  setenv("SYNCSCOPE_STACKS", "0", 1);
  setenv("SYNCSCOPE_LOG", "debug", 1);
  setenv("SYNCSCOPE_DISABLE", "1", 1);
  setenv("SYNCSCOPE_DORMANT", "1", 1);
  Config c = config_from_environment();
  EXPECT_FALSE(c.enabled);
  EXPECT_TRUE(c.dormant);
  unsetenv("SYNCSCOPE_DORMANT");
  EXPECT_STREQ(c.output_dir, "/tmp/x");
  EXPECT_EQ(c.flush_ms, 200u);
  EXPECT_EQ(c.ring_events, 1024u);
  EXPECT_FALSE(c.stacks);
  EXPECT_EQ(c.log_level, 2);

  setenv("SYNCSCOPE_FLUSH_MS", "banana", 1);  // invalid: default kept
  setenv("SYNCSCOPE_RING_EVENTS", "3", 1);    // below the minimum: default kept
  c = config_from_environment();
  EXPECT_EQ(c.flush_ms, 50u);
  EXPECT_EQ(c.ring_events, 16384u);
  for (const char* k : {"SYNCSCOPE_DISABLE", "SYNCSCOPE_OUTPUT_DIR", "SYNCSCOPE_FLUSH_MS", "SYNCSCOPE_RING_EVENTS",
                        "SYNCSCOPE_STACKS", "SYNCSCOPE_LOG"}) {
    unsetenv(k);
  }
}

TEST(Config, StatusChannel) {
  unsetenv("SYNCSCOPE_STATUS_FD");
  EXPECT_EQ(config_from_environment().status_fd, -1);
  setenv("SYNCSCOPE_STATUS_FD", "7:4242:23:123456789012", 1);
  Config c = config_from_environment();
  EXPECT_EQ(c.status_fd, 7);
  EXPECT_EQ(c.status_owner, 4242);
  EXPECT_EQ(c.status_dev, 23u);
  EXPECT_EQ(c.status_ino, 123456789012u);
  // Anything malformed leaves no channel: the recorder never writes to a
  // descriptor it is not sure of.
  for (const char* bad : {"", "7", "7:4242:23", "7:4242:23:1:9", "x:1:2:3", "7:0:23:1", "-1:5:2:3", "7:5:2:3 "}) {
    setenv("SYNCSCOPE_STATUS_FD", bad, 1);
    EXPECT_EQ(config_from_environment().status_fd, -1) << bad;
  }
  unsetenv("SYNCSCOPE_STATUS_FD");
}

}  // namespace
}  // namespace syncscope::preload
