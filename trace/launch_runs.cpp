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

namespace {

// Where expand_launch_run puts launch i of a run of `count`: its start and end.
struct SpreadTimes {
  SpreadTimes(const LaunchRun& run, size_t count)
      : count_(count),
        first_(run.first_start_ns),
        last_(std::max(run.last_start_ns, run.first_start_ns)),
        last_end_(std::max(run.last_end_ns, last_)),
        host_each_(count == 0 ? 0 : run.host_ns / count) {}
  // In 128-bit integers, exact: span * i / (count - 1) never exceeds span.
  // In doubles a span near 2^64 (a damaged run) rounded up to 2^64, whose
  // cast back is undefined (UBSan in tests/fuzz/fuzz_trace_reader, input
  // tests/fuzz/corpus/trace_reader/run_spanning_2_64.sstrace).
  uint64_t start(size_t i) const {
    if (i + 1 == count_) return last_;
    return count_ == 1 ? first_
                       : first_ + static_cast<uint64_t>(static_cast<unsigned __int128>(last_ - first_) * i / (count_ - 1));
  }
  uint64_t end(size_t i) const { return i + 1 == count_ ? last_end_ : start(i) + host_each_; }
  uint64_t host_ns(size_t i) const { return end(i) - start(i); }

 private:
  size_t count_;
  uint64_t first_, last_, last_end_, host_each_;
};

}  // namespace

void expand_launch_run(const LaunchRun& run, const Event* shapes, size_t count, std::vector<Event>* out) {
  const SpreadTimes times(run, count);
  for (size_t i = 0; i < count; ++i) {
    Event e = shapes[i];
    e.start_ns = times.start(i);
    e.end_ns = times.end(i);
    e.tid = run.tid;
    e.stack_id = 0;
    e.flags |= kFlagAggregated;
    out->push_back(e);
  }
}

void fold_launch_run(const LaunchRun& run, const Event* shapes, size_t count, std::vector<Event>* out) {
  const SpreadTimes times(run, count);
  const size_t first = out->size();
  // A sequence launches on one stream, seldom a few: a linear search.
  for (size_t i = 0; i < count; ++i) {
    const Event& shape = shapes[i];
    const uint8_t per_thread = shape.flags & kFlagPerThreadStream;
    size_t g = first;
    while (g < out->size() && !((*out)[g].stream == shape.stream && ((*out)[g].flags & kFlagPerThreadStream) == per_thread))
      ++g;
    if (g == out->size()) {
      Event e = shape;
      e.start_ns = times.start(i);
      e.tid = run.tid;
      e.stack_id = 0;
      e.flags |= kFlagAggregated | kFlagFolded;
      e.dst = kFoldedLaunchTag | uint64_t{run.sequence_id} << 16 | (g - first);
      e.bytes = 0;  // launches it stands for
      e.src = 0;    // their host time
      out->push_back(e);
    }
    Event& group = (*out)[g];
    group.end_ns = times.end(i);
    group.bytes += 1;
    group.src += times.host_ns(i);
  }
}

}  // namespace syncscope
