#include "report/dropped_events_text.h"

#include <cstdlib>

#include "report/units.h"
#include "trace/environment.h"
#include "trace/process_info_keys.h"

namespace syncscope {

std::string dropped_events_text(const ProcessTrace& trace) {
  const uint64_t at_exit = trace.events_unwritten_at_exit;
  const uint64_t no_memory = trace.events_lost_no_memory;
  const uint64_t over_limit = trace.events_over_size_limit;
  const uint64_t ring_full = trace.events_dropped - at_exit - no_memory - over_limit;
  std::string reasons;
  auto add = [&reasons](const std::string& reason) { reasons += (reasons.empty() ? "" : "; ") + reason; };
  if (ring_full > 0) {
    add("ring full: " + std::to_string(ring_full) + ", raise " + env::kRingEvents + " or lower " + env::kFlushMs);
  }
  if (at_exit > 0) {
    add("left at exit: " + std::to_string(at_exit) + ", the last flush ran out of time; raise " + env::kExitFlushMs);
  }
  if (no_memory > 0) add("out of memory while writing: " + std::to_string(no_memory));
  if (over_limit > 0) add("past the trace size limit (--max-trace-size): " + std::to_string(over_limit));
  return std::to_string(trace.events_dropped) + " (" + reasons + ")";
}

std::string size_limit_text(const ProcessTrace& trace) {
  const std::string value = trace.info(info_key::kTraceSizeLimit);  // "LIMIT_BYTES at NS"
  if (value.empty()) return "";
  char* end = nullptr;
  const uint64_t limit = std::strtoull(value.c_str(), &end, 10);
  const size_t at = value.find(" at ");
  const uint64_t when = at == std::string::npos ? 0 : std::strtoull(value.c_str() + at + 4, nullptr, 10);
  std::string text = "trace size limit of " + format_bytes(limit) + " reached";
  if (when > trace.header.start_monotonic_ns) {
    text += " " + format_duration(when - trace.header.start_monotonic_ns) + " into the recording";
  }
  return text + ": the report covers the run until then";
}

}  // namespace syncscope
