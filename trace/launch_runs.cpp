#include "trace/launch_runs.h"

#include <algorithm>

namespace syncscope {

Event launch_shape(const Event& e) {
  Event s = e;
  s.start_ns = s.end_ns = 0;
  s.tid = 0;
  s.stack_id = 0;
  return s;
}

bool same_shape(const Event& a, const Event& b) {
  return a.stream == b.stream && a.bytes == b.bytes && a.dst == b.dst && a.src == b.src && a.api == b.api &&
         a.direction == b.direction && a.host_mem == b.host_mem && a.flags == b.flags && a.device == b.device &&
         a.result == b.result;
}

namespace {
uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 31);
}
}  // namespace

uint64_t shape_hash(const Event& s) {
  uint64_t h = mix(0x51ed270b7f4a7c15ull, s.api);
  h = mix(h, s.stream);
  h = mix(h, s.dst);
  h = mix(h, s.src);
  h = mix(h, s.bytes);
  return mix(h, (uint64_t{s.flags} << 16) | (uint64_t{static_cast<uint8_t>(s.device)} << 8) | s.direction);
}

void expand_launch_run(const LaunchRun& run, const Event* shapes, size_t count, std::vector<Event>* out) {
  if (count == 0) return;
  const uint64_t first = run.first_start_ns;
  const uint64_t last = std::max(run.last_start_ns, first);
  const uint64_t span = last - first;
  const uint64_t host_each = run.host_ns / count;
  for (size_t i = 0; i < count; ++i) {
    Event e = shapes[i];
    // In 128-bit integers, exact: span * i / (count - 1) never exceeds span.
    // In doubles a span near 2^64 (a damaged run) rounded up to 2^64, whose
    // cast back is undefined (UBSan in tests/fuzz/fuzz_trace_reader, input
    // tests/fuzz/corpus/trace_reader/run_spanning_2_64.sstrace).
    e.start_ns =
        count == 1 ? first : first + static_cast<uint64_t>(static_cast<unsigned __int128>(span) * i / (count - 1));
    e.end_ns = e.start_ns + host_each;
    if (i + 1 == count) {
      e.start_ns = last;
      e.end_ns = std::max(run.last_end_ns, last);
    }
    e.tid = run.tid;
    e.stack_id = 0;
    e.flags |= kFlagAggregated;
    out->push_back(e);
  }
}

}  // namespace syncscope
