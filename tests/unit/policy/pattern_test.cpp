#include "policy/pattern.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace syncscope {
namespace {

TEST(Pattern, SubstringUnlessAnchored) {
  EXPECT_TRUE(pattern_matches("log_metrics", "trainer.log_metrics"));
  EXPECT_TRUE(pattern_matches("log_metrics", "log_metrics_every_n"));
  EXPECT_FALSE(pattern_matches("^log_metrics", "trainer.log_metrics"));
  EXPECT_FALSE(pattern_matches("log_metrics$", "log_metrics_every_n"));
  EXPECT_TRUE(pattern_matches("^log_metrics$", "log_metrics"));
  EXPECT_FALSE(pattern_matches("^log_metrics$", "log_metrics2"));
}

TEST(Pattern, Wildcards) {
  EXPECT_TRUE(pattern_matches("*/third_party/*", "/src/third_party/loader.py:12"));
  EXPECT_FALSE(pattern_matches("^*/third_party/*$", "/src/vendor/loader.py"));
  EXPECT_TRUE(pattern_matches("train.py:4*", "/home/me/train.py:42"));
  EXPECT_TRUE(pattern_matches("^a*b*c$", "aXXbYYc"));
  EXPECT_FALSE(pattern_matches("^a*b*c$", "aXXbYYcd"));
  EXPECT_TRUE(pattern_matches("*", ""));
  EXPECT_TRUE(pattern_matches("", "anything"));
}

TEST(Pattern, PathologicalPatternsStayFast) {
  std::string text(20000, 'a');
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(pattern_matches("^*a*a*a*a*a*a*a*a*b$", text));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

}  // namespace
}  // namespace syncscope
