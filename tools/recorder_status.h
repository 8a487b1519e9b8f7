// What the recorded processes said on the status channel
// (trace/recording_status.h), and what the launcher checks itself once the
// command has exited: which traces were opened, what went wrong.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "report/recording_problem.h"

namespace syncscope {

struct RecorderStatus {
  std::vector<std::pair<uint32_t, std::string>> traces_opened;  // pid, path
  std::vector<RecordingProblem> problems;                       // as reported, duplicates dropped
};

// Parses "<pid> <kind>[ <detail>]" lines. A line that does not parse is
// kept as a kStatusMalformed problem: only the recorder writes there, so
// garbage means something went wrong, and it must not pass silently.
RecorderStatus parse_recorder_status(const std::string& text);

// The reported problems, plus what nobody could report: the output
// directory gone, or a trace that was opened and is no longer there
// (deleted or moved after its recorder last looked, or by then killed).
std::vector<RecordingProblem> recording_problems(const RecorderStatus& status, const std::string& dir);

}  // namespace syncscope
