// Terminal controls from a trace (a hostile argv, thread or file name) are
// written as \xNN in the text formats; the report's own colours stay.
#include <gtest/gtest.h>

#include "report/terminal_safe.h"

namespace syncscope {
namespace {

TEST(TerminalSafe, ControlsAreEscapedNewlinesKept) {
  EXPECT_EQ(terminal_safe("train.py\n", false), "train.py\n");
  EXPECT_EQ(terminal_safe("a\033]0;owned\007b", false), "a\\x1b]0;owned\\x07b");  // set the title
  EXPECT_EQ(terminal_safe("x\033[2Jy", true), "x\\x1b[2Jy");                      // clear the screen
  EXPECT_EQ(terminal_safe("tab\there\r", false), "tab\\x09here\\x0d");
  EXPECT_EQ(terminal_safe("del\x7f", false), "del\\x7f");
  EXPECT_EQ(terminal_safe("c1\xc2\x9b" "31m", false), "c1\\x9b31m");  // CSI as a C1 control
  EXPECT_EQ(terminal_safe("µs …", false), "µs …");                    // UTF-8 text is text
}

TEST(TerminalSafe, TheReportsOwnColoursStayWhenAsked) {
  EXPECT_EQ(terminal_safe("\033[1;31mhidden-sync\033[0m", true), "\033[1;31mhidden-sync\033[0m");
  EXPECT_EQ(terminal_safe("\033[1;31mhidden-sync\033[0m", false), "\\x1b[1;31mhidden-sync\\x1b[0m");
}

}  // namespace
}  // namespace syncscope
