#include "preload/recording/capture_tracker.h"

#include <gtest/gtest.h>

namespace syncscope::preload {
namespace {

TEST(CaptureTracker, TracksStreamsBetweenBeginAndEnd) {
  EXPECT_FALSE(any_capture_active());
  EXPECT_FALSE(stream_is_capturing(0x1234));
  capture_started(0x1234);
  EXPECT_TRUE(any_capture_active());
  EXPECT_TRUE(stream_is_capturing(0x1234));
  EXPECT_FALSE(stream_is_capturing(0x5678));
  EXPECT_FALSE(stream_is_capturing(0));  // legacy stream: never captured
  capture_ended(0x1234);
  EXPECT_FALSE(stream_is_capturing(0x1234));
  EXPECT_FALSE(any_capture_active());
}

}  // namespace
}  // namespace syncscope::preload
