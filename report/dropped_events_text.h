// What a report says of the events a process recorded and never wrote:
// how many, and why (docs/trace-format.md, kEnd), with what to change.
#pragma once

#include <string>

#include "trace/reader.h"

namespace syncscope {

// "1234 (ring full: 1000, raise SYNCSCOPE_RING_EVENTS or lower
// SYNCSCOPE_FLUSH_MS; left at exit: 234, the last flush ran out of time)".
std::string dropped_events_text(const ProcessTrace& trace);

// "trace size limit of 1.00 GiB reached 2.50 h into the recording: the
// report covers the run until then", or "" when no limit was reached.
std::string size_limit_text(const ProcessTrace& trace);

}  // namespace syncscope
