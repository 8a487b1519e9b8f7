// The launcher's reading of the recorder's status lines, and its own check
// for traces and directories that are gone.
#include "tools/recorder_status.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "trace/recording_status.h"

namespace syncscope {
namespace {

namespace fs = std::filesystem;

TEST(RecorderStatus, ParsesEveryKind) {
  RecorderStatus s = parse_recorder_status(
      "101 trace-opened /t/101-0.sstrace\n"
      "102 trace-open-failed cannot create /t/102-0.sstrace: Permission denied\n"
      "101 write-failed /t/101-0.sstrace: No space left on device\n"
      "103 trace-removed /t/103-0.sstrace\n"
      "104 events-dropped 4096\n"
      "105 some-future-kind\n");
  ASSERT_EQ(s.traces_opened.size(), 1u);
  EXPECT_EQ(s.traces_opened[0].first, 101u);
  EXPECT_EQ(s.traces_opened[0].second, "/t/101-0.sstrace");
  ASSERT_EQ(s.problems.size(), 5u);
  EXPECT_EQ(s.problems[0],
            (RecordingProblem{102, kStatusTraceOpenFailed, "cannot create /t/102-0.sstrace: Permission denied"}));
  EXPECT_EQ(s.problems[1], (RecordingProblem{101, kStatusWriteFailed, "/t/101-0.sstrace: No space left on device"}));
  EXPECT_EQ(s.problems[2], (RecordingProblem{103, kStatusTraceRemoved, "/t/103-0.sstrace"}));
  EXPECT_EQ(s.problems[3], (RecordingProblem{104, kStatusEventsDropped, "4096"}));
  // A kind this launcher does not know is still a problem, never ignored.
  EXPECT_EQ(s.problems[4], (RecordingProblem{105, "some-future-kind", ""}));
  EXPECT_NE(problem_message(s.problems[4]).find("pid 105"), std::string::npos);
}

TEST(RecorderStatus, MalformedLinesAreProblemsToo) {
  for (const char* line : {"trace-opened /x", "0 write-failed x", "12a write-failed x", "12 ", "12 Write-Failed x",
                           "99999999999 write-failed x", " 12 write-failed x"}) {
    RecorderStatus s = parse_recorder_status(std::string(line) + "\n");
    ASSERT_EQ(s.problems.size(), 1u) << line;
    EXPECT_EQ(s.problems[0].kind, kStatusMalformed) << line;
    EXPECT_EQ(s.problems[0].detail, line);
    EXPECT_TRUE(s.traces_opened.empty());
  }
  // Blank lines and a last line without its newline are fine.
  RecorderStatus s = parse_recorder_status("\n\n7 trace-opened /a\n7 events-dropped 3");
  EXPECT_EQ(s.traces_opened.size(), 1u);
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_EQ(s.problems[0].detail, "3");
  EXPECT_TRUE(parse_recorder_status("").problems.empty());
}

TEST(RecorderStatus, DuplicatesMergeAndDropsKeepTheLargestCount) {
  RecorderStatus s = parse_recorder_status(
      "8 write-failed /a: EIO\n8 write-failed /a: EIO\n8 events-dropped 10\n8 events-dropped 30\n"
      "8 events-dropped 20\n9 events-dropped 5\n");
  ASSERT_EQ(s.problems.size(), 3u);
  EXPECT_EQ(s.problems[1], (RecordingProblem{8, kStatusEventsDropped, "30"}));
  EXPECT_EQ(s.problems[2], (RecordingProblem{9, kStatusEventsDropped, "5"}));
}

TEST(RecorderStatus, TracesAndDirectoriesThatAreGone) {
  fs::path dir = fs::path(::testing::TempDir()) / ("recorder_status_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream((dir / "1-0.sstrace").string()) << "x";
  RecorderStatus s = parse_recorder_status("1 trace-opened " + (dir / "1-0.sstrace").string() + "\n2 trace-opened " +
                                           (dir / "2-0.sstrace").string() + "\n2 trace-removed " +
                                           (dir / "2-0.sstrace").string() + "\n");
  // Pid 2 said so itself; the launcher's own finding is the same problem, listed once.
  std::vector<RecordingProblem> problems = recording_problems(s, dir.string());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], (RecordingProblem{2, kStatusTraceRemoved, (dir / "2-0.sstrace").string()}));
  // A trace gone with nobody to say so (its process killed): found anyway.
  fs::remove(dir / "1-0.sstrace");
  problems = recording_problems(s, dir.string());
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[1], (RecordingProblem{1, kStatusTraceRemoved, (dir / "1-0.sstrace").string()}));
  fs::remove_all(dir);
  problems = recording_problems(s, dir.string());
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[1], (RecordingProblem{0, kStatusDirectoryRemoved, dir.string()}));
  EXPECT_NE(problem_message(problems[1]).find("deleted"), std::string::npos);
  // A clean run: nothing to say.
  EXPECT_TRUE(recording_problems(parse_recorder_status(""), ::testing::TempDir()).empty());
}

}  // namespace
}  // namespace syncscope
