// Describes the recorded process in the trace (command line, executable,
// working directory, distributed rank, which CUDA runtime was used), so a
// report can say what it is looking at. Collector thread only.
#pragma once

namespace syncscope {
class TraceWriter;
}

namespace syncscope::preload {

void write_process_info(TraceWriter& writer);

}  // namespace syncscope::preload
