// Describes the recorded process in the trace (command line, executable,
// working directory, distributed rank, which CUDA runtime was used), so a
// report can say what it is looking at. Collector thread only.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace syncscope {
class TraceWriter;
}

namespace syncscope::preload {

void write_process_info(TraceWriter& writer);

// Extra key/value pairs for the next trace's process record (how a session
// was attached, what it cannot see). Set before the session's collector starts.
void set_session_info(std::vector<std::pair<std::string, std::string>> info);

}  // namespace syncscope::preload
