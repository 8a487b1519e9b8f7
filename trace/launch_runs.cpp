#include "trace/launch_runs.h"

#include <algorithm>

#include "trace/api.h"

namespace syncscope {

Event launch_shape(const Event& e) {
  Event s = e;
  s.start_ns = s.end_ns = 0;
  s.tid = 0;
  s.stack_id = 0;
  // A memset's pointer is whatever block the caching allocator hands out
  // that step (318 different ones for 1,440 memsets in 60 steps of a
  // transformer's backward): kept, no two steps' sequences would match.
  if (api_family(s.api) == ApiFamily::kMemset) s.dst = 0;
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
  uint64_t host_each() const { return host_each_; }

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

namespace {

// The smallest p such that shapes[i] is shapes[i + p] throughout (the
// prefix function of string matching); `count` when nothing shorter repeats.
size_t smallest_period(const Event* shapes, size_t count) {
  if (count == 0) return 0;
  std::vector<size_t> border(count, 0);
  for (size_t i = 1; i < count; ++i) {
    size_t k = border[i - 1];
    while (k > 0 && !same_shape(shapes[i], shapes[k])) k = border[k - 1];
    if (same_shape(shapes[i], shapes[k])) ++k;
    border[i] = k;
  }
  return count - border[count - 1];
}

// The block a sequence folds by: the smallest multiple of its period with
// at least kMinFoldedBlock launches and 1/kMaxFoldedBlocks of the sequence.
size_t block_length(const Event* shapes, size_t count) {
  const size_t period = smallest_period(shapes, count);
  // A short repeat is a layer's (identical layers in a step), not a step's.
  if (period < kMinFoldedBlock || 2 * period > count) return count;
  const size_t least = std::max<size_t>(kMinFoldedBlock, (count + kMaxFoldedBlocks - 1) / kMaxFoldedBlocks);
  return std::min(count, (least + period - 1) / period * period);
}

}  // namespace

FoldedSequence fold_sequence(uint32_t sequence_id, const Event* shapes, size_t count) {
  FoldedSequence folded;
  folded.launches = static_cast<uint32_t>(count);
  const size_t block = block_length(shapes, count);
  std::vector<std::vector<uint64_t>> kernels;  // per group
  for (size_t begin = 0; begin < count; begin += block) {
    const size_t end = std::min(count, begin + block);
    const uint64_t partial = end - begin < block ? 1 : 0;
    const size_t first_group = folded.groups.size();
    // A block launches on one stream, seldom a few: a linear search.
    for (size_t i = begin; i < end; ++i) {
      const Event& shape = shapes[i];
      const uint8_t per_thread = shape.flags & kFlagPerThreadStream;
      size_t g = first_group;
      while (g < folded.groups.size() && !(folded.groups[g].shape.stream == shape.stream &&
                                            folded.groups[g].shape.api == shape.api &&
                                            (folded.groups[g].shape.flags & kFlagPerThreadStream) == per_thread)) {
        ++g;
      }
      if (g == folded.groups.size()) {
        FoldedSequence::Group group;
        group.shape = shape;
        group.shape.flags |= kFlagAggregated | kFlagFolded;
        group.shape.dst = kFoldedLaunchTag | uint64_t{sequence_id} << 16 | partial << 15 | (g - first_group);
        group.shape.stack_id = 0;
        group.first = static_cast<uint32_t>(i);
        folded.groups.push_back(group);
        kernels.emplace_back();
      }
      folded.groups[g].last = static_cast<uint32_t>(i);
      ++folded.groups[g].count;
      kernels[g].push_back(shape.dst);
    }
  }
  for (size_t g = 0; g < folded.groups.size(); ++g) {
    std::sort(kernels[g].begin(), kernels[g].end());
    const size_t distinct = static_cast<size_t>(std::unique(kernels[g].begin(), kernels[g].end()) - kernels[g].begin());
    folded.groups[g].shape.result = static_cast<int16_t>(std::min<size_t>(distinct, INT16_MAX));
  }
  return folded;
}

void fold_launch_run(const LaunchRun& run, const FoldedSequence& sequence, std::vector<Event>* out) {
  if (sequence.launches == 0) return;
  const SpreadTimes times(run, sequence.launches);
  for (const FoldedSequence::Group& group : sequence.groups) {
    Event e = group.shape;
    e.start_ns = times.start(group.first);
    e.end_ns = times.end(group.last);
    e.tid = run.tid;
    e.bytes = group.count;  // launches it stands for
    // Their host time: host_each apiece, the run's last launch what is left.
    const bool has_last = group.last + 1 == sequence.launches;
    e.src = (group.count - (has_last ? 1 : 0)) * times.host_each() + (has_last ? times.host_ns(group.last) : 0);
    out->push_back(e);
  }
}

}  // namespace syncscope
