#include "trace/trace_parser.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "trace/gpu_join.h"

namespace syncscope {
namespace {

template <typename T>
T load(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

std::string text(const unsigned char* p, uint32_t len) { return std::string(reinterpret_cast<const char*>(p), len); }

// kThread and kString share a layout: u32 id, u32 len, char text[len].
// `record` and `field` name them in errors; empty on success.
std::string numbered_text(const unsigned char* p, uint32_t size, const char* record, const char* field, uint32_t* id,
                          std::string* out) {
  if (size < 8) return absl::StrCat(record, " record of ", size, " bytes is too short");
  uint32_t len = load<uint32_t>(p + 4);
  if (8 + uint64_t{len} > size) return absl::StrCat(field, " overruns its record");
  *id = load<uint32_t>(p);
  *out = text(p + 8, len);
  return {};
}

std::string hex(const unsigned char* p, uint32_t len) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size_t{len} * 2);
  for (uint32_t i = 0; i < len; ++i) {
    out += kDigits[p[i] >> 4];
    out += kDigits[p[i] & 15];
  }
  return out;
}

}  // namespace

bool starts_before(const Event& a, const Event& b) { return a.start_ns < b.start_ns; }

absl::Status TraceParser::begin() {
  // The header: anything wrong here means the file cannot be read at all.
  const uint64_t size = bytes_.size_hint();
  if (!bytes_.fetch(0, sizeof(kTraceMagic)) || std::memcmp(bytes_.at(0), kTraceMagic, sizeof(kTraceMagic)) != 0) {
    if (!bytes_.error().empty()) return absl::DataLossError(bytes_.error());
    return absl::InvalidArgumentError(absl::StrCat("not a syncscope trace: ", path_));
  }
  if (!bytes_.fetch(0, 12)) {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": file ends inside the trace header (", size, " bytes)"));
  }
  const uint32_t version = load<uint32_t>(bytes_.at(8));
  if (version < kOldestTraceVersion || version > kTraceVersion) {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": unsupported trace version ", version,
                                                   ", this reader understands ", kOldestTraceVersion, " to ",
                                                   kTraceVersion));
  }
  if (!bytes_.fetch(0, sizeof(FileHeader))) {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": file ends inside the trace header (", size, " of ",
                                                   sizeof(FileHeader), " bytes)"));
  }
  trace_.file = path_;
  std::memcpy(&trace_.header, bytes_.at(0), sizeof(FileHeader));
  const FileHeader& h = trace_.header;
  if (h.header_size < sizeof(FileHeader)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": corrupt trace header (header_size ", h.header_size, " < ", sizeof(FileHeader), ")"));
  }
  if (!bytes_.fetch(0, h.header_size)) {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": file ends inside the trace header (header_size ",
                                                   h.header_size, ", file ", size, " bytes)"));
  }
  if (h.event_size < sizeof(Event) || h.event_size > kMaxEventSize) {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": unsupported event size ", h.event_size,
                                                   " (this reader understands ", sizeof(Event), " to ", kMaxEventSize,
                                                   ")"));
  }
  event_size_ = h.event_size;

  // Count the events first (headers, and the launch runs' sequence lengths)
  // so they are stored in one allocation, and whether to fold (ReadOptions:
  // a long trace with runs, and no GPU work, which joins each launch).
  // Bounded by the file: a sequence's length counts only as far as its
  // record holds launches.
  size_t events = 0, runs = 0, launches_in_runs = 0;
  std::unordered_map<uint32_t, uint32_t> sequence_length;
  for (uint64_t at = h.header_size; bytes_.fetch(at, sizeof(RecordHeader));) {
    RecordHeader rh;
    std::memcpy(&rh, bytes_.at(at), sizeof(rh));
    if (rh.size > kMaxRecordPayload || !bytes_.fetch(at + sizeof(rh), padded_size(rh.size))) break;
    const unsigned char* payload = bytes_.at(at + sizeof(rh));
    if (rh.type == static_cast<uint32_t>(RecordType::kEvents)) events += rh.size / h.event_size;
    if (rh.type == static_cast<uint32_t>(RecordType::kLaunchSequence) && rh.size >= 8) {
      sequence_length[load<uint32_t>(payload)] = std::min<uint32_t>(
          {load<uint32_t>(payload + 4), (rh.size - 8) / h.event_size, kMaxLaunchSequence});
    }
    if (rh.type == static_cast<uint32_t>(RecordType::kLaunchRuns)) {
      for (size_t r = 0; r + sizeof(LaunchRun) <= rh.size; r += sizeof(LaunchRun)) {
        auto it = sequence_length.find(load<uint32_t>(payload + r + offsetof(LaunchRun, sequence_id)));
        if (it == sequence_length.end()) continue;
        ++runs;
        launches_in_runs += it->second;
      }
    }
    if (rh.type == static_cast<uint32_t>(RecordType::kGpuActivity) && rh.size >= 8) {
      const uint32_t entry = load<uint32_t>(payload);
      if (entry >= sizeof(GpuRecord) && entry <= kMaxEventSize) {
        for (size_t r = 8; r + entry <= rh.size && !gpu_work_; r += entry) {
          gpu_work_ = gpu_kind_is_work(payload[r + offsetof(GpuRecord, kind)]);
        }
      }
    }
    at += sizeof(rh) + padded_size(rh.size);
  }
  fold_ = options_.fold_launch_runs && runs > 0 && !gpu_work_ && events + launches_in_runs > options_.fold_above_calls;
  trace_.folded = fold_;
  counted_calls_ = events + launches_in_runs;
  // Folded, a run is one event per block and stream: counted as one (the rare others grow the vector).
  counted_events_ = events + (fold_ ? runs : launches_in_runs);
  offset_ = h.header_size;
  return absl::OkStatus();
}

bool TraceParser::next_record() {
  if (ended_) return false;
  ended_ = true;  // unless a whole record is read below
  if (!bytes_.fetch(offset_, sizeof(RecordHeader))) {
    if (!bytes_.error().empty()) {
      trace_.truncation = bytes_.error();
    } else if (bytes_.fetch(offset_, 1)) {
      trace_.truncation = absl::StrCat("file ends inside a record at offset ", offset_, " (process killed?)");
    }
    return false;
  }
  RecordHeader rh;
  std::memcpy(&rh, bytes_.at(offset_), sizeof(rh));
  if (rh.size > kMaxRecordPayload) {
    trace_.truncation = absl::StrCat("corrupt record at offset ", offset_, ": payload of ", rh.size,
                                     " bytes exceeds the limit of ", kMaxRecordPayload);
    return false;
  }
  const size_t padded = padded_size(rh.size);
  if (!bytes_.fetch(offset_ + sizeof(rh), padded)) {
    trace_.truncation = bytes_.error().empty()
                            ? absl::StrCat("file ends inside a record at offset ", offset_, " (process killed?)")
                            : bytes_.error();
    return false;
  }
  std::string why = parse_record(rh.type, bytes_.at(offset_ + sizeof(rh)), rh.size);
  if (!why.empty()) {
    trace_.truncation = absl::StrCat("corrupt record at offset ", offset_, ": ", why);
    return false;
  }
  keep_sorted();
  offset_ += sizeof(rh) + padded;
  ended_ = false;
  return true;
}

void TraceParser::finish() {
  ProcessTrace& trace = trace_;
  if (have_end_) {
    trace.events_unwritten_at_exit = end_.events_unwritten_at_exit;
    trace.events_lost_no_memory = end_.events_lost_no_memory;
    trace.events_over_size_limit = end_.events_over_size_limit;
    trace.events_dropped = end_.events_dropped + trace.events_unwritten_at_exit + trace.events_lost_no_memory +
                           trace.events_over_size_limit;
    trace.stacks_dropped = end_.stacks_dropped;
  } else {
    trace.events_dropped = 0;
    for (const auto& [tid, count] : drops_) trace.events_dropped += count;
  }
  trace.complete = have_end_ && trace.truncation.empty();
  if (!have_end_ && trace.truncation.empty()) {
    trace.truncation = "no end record (process killed or still running)";
  }
  std::stable_sort(trace.modules.begin(), trace.modules.end(),
                   [](const Module& a, const Module& b) { return a.start < b.start; });
}

ProcessTrace TraceParser::take_whole() {
  trace_.events.reserve(counted_events_);
  while (next_record()) {
  }
  finish();
  // Usually in order already (keep_sorted); stable_sort would still merge it.
  if (!std::is_sorted(trace_.events.begin(), trace_.events.end(), starts_before)) {
    std::stable_sort(trace_.events.begin(), trace_.events.end(), starts_before);
  }
  join_gpu_activity(trace_);
  return std::move(trace_);
}

// Keeps the events read so far in start order as each record adds some.
// A record's events overlap in time only those of the last few records (a
// drain writes each thread's events, then its runs of launches), so the new
// ones are sorted and merged into the tail of the old: no buffer the size
// of the whole trace is needed at the end (a third of the report's peak
// memory on a long trace, and of its time). A file whose records overlap
// much more than that (odd, or hostile) is left to one stable sort at the
// end, so the work stays linear in the events.
void TraceParser::keep_sorted() {
  std::vector<Event>& events = trace_.events;
  if (unsorted_ || sorted_upto_ >= events.size()) return;
  const auto added = events.begin() + static_cast<std::ptrdiff_t>(sorted_upto_);
  std::stable_sort(added, events.end(), starts_before);
  if (sorted_upto_ > 0 && starts_before(*added, *(added - 1))) {
    // Older events starting after the first new one; equal starts keep file order.
    const auto from = std::upper_bound(events.begin(), added, *added, starts_before);
    merge_work_ += static_cast<uint64_t>(events.end() - from);
    if (merge_work_ > 8 * uint64_t{events.size()} + (uint64_t{1} << 20)) {
      unsorted_ = true;
      return;
    }
    std::inplace_merge(from, added, events.end(), starts_before);
  }
  sorted_upto_ = events.size();
}

// Parses one record's payload (`size` bytes, all present) into the trace;
// returns "" or why the record is corrupt. Unknown types are skipped.
std::string TraceParser::parse_record(uint32_t type, const unsigned char* p, uint32_t size) {
  ProcessTrace& trace = trace_;
  switch (static_cast<RecordType>(type)) {
    case RecordType::kEvents: {
      if (size % event_size_ != 0) {
        return absl::StrCat("events payload of ", size, " bytes is not a multiple of the event size ", event_size_);
      }
      const size_t n = size / event_size_;
      for (size_t i = 0; i < n; ++i) {
        Event e;
        std::memcpy(&e, p + i * event_size_, sizeof(Event));  // newer, longer events: the first 64 bytes
        trace.events.push_back(e);
      }
      return {};
    }
    case RecordType::kLaunchSequence: {
      if (size < 8) return absl::StrCat("launch sequence record of ", size, " bytes is too short");
      const uint32_t id = load<uint32_t>(p), count = load<uint32_t>(p + 4);
      if (count == 0 || count > kMaxLaunchSequence || 8 + uint64_t{count} * event_size_ > size) {
        return absl::StrCat("launch sequence of ", count, " launches does not fit its record (at most ",
                            kMaxLaunchSequence, ")");
      }
      std::vector<Event> shapes(count);
      for (uint32_t i = 0; i < count; ++i) std::memcpy(&shapes[i], p + 8 + size_t{i} * event_size_, sizeof(Event));
      if (fold_) folded_[id] = fold_sequence(id, shapes.data(), shapes.size());
      sequences_[id] = std::move(shapes);
      return {};
    }
    case RecordType::kLaunchRuns: {
      if (size % sizeof(LaunchRun) != 0) {
        return absl::StrCat("launch runs payload of ", size, " bytes is not a multiple of ", sizeof(LaunchRun));
      }
      for (size_t i = 0; i < size / sizeof(LaunchRun); ++i) {
        LaunchRun run;
        std::memcpy(&run, p + i * sizeof(LaunchRun), sizeof(run));
        auto it = sequences_.find(run.sequence_id);
        if (it == sequences_.end()) return absl::StrCat("launch run of unknown sequence ", run.sequence_id);
        if (fold_) {
          fold_launch_run(run, folded_[run.sequence_id], &trace.events);
        } else {
          expand_launch_run(run, it->second.data(), it->second.size(), &trace.events);
        }
        trace.aggregated_launches += it->second.size();
        ++trace.launch_runs;
      }
      return {};
    }
    case RecordType::kStack: {
      if (size < 8) return absl::StrCat("stack record of ", size, " bytes is too short");
      uint32_t id = load<uint32_t>(p), depth = load<uint32_t>(p + 4);
      if (depth > kMaxStackDepth) return absl::StrCat("stack depth ", depth, " exceeds ", kMaxStackDepth);
      if (8 + uint64_t{depth} * 8 > size) return absl::StrCat("stack of depth ", depth, " does not fit its record");
      std::vector<uint64_t> pcs(depth);
      if (depth > 0) std::memcpy(pcs.data(), p + 8, size_t{depth} * 8);
      trace.stacks[id] = std::move(pcs);
      return {};
    }
    case RecordType::kModule: {
      if (size < 28) return absl::StrCat("module record of ", size, " bytes is too short");
      uint32_t len = load<uint32_t>(p + 24);
      if (28 + uint64_t{len} > size) return "module path overruns its record";
      Module m;
      m.start = load<uint64_t>(p);
      m.end = load<uint64_t>(p + 8);
      m.bias = load<uint64_t>(p + 16);
      m.path = text(p + 28, len);
      trace.modules.push_back(std::move(m));
      return {};
    }
    case RecordType::kModuleBuildId: {
      if (size < 12) return absl::StrCat("module build-id record of ", size, " bytes is too short");
      const uint64_t start = load<uint64_t>(p);
      const uint32_t len = load<uint32_t>(p + 8);
      if (12 + uint64_t{len} > size) return "module build-id overruns its record";
      // The module it belongs to was written just before it; an unmatched
      // one (its module record lost) is ignored.
      for (auto m = trace.modules.rbegin(); m != trace.modules.rend(); ++m) {
        if (m->start != start) continue;
        m->build_id = hex(p + 12, len);
        break;
      }
      return {};
    }
    case RecordType::kThread: {
      uint32_t tid = 0;
      std::string name;
      std::string error = numbered_text(p, size, "thread", "thread name", &tid, &name);
      if (error.empty()) trace.thread_names[tid] = std::move(name);
      return error;
    }
    case RecordType::kProcess: {
      if (size < 8) return absl::StrCat("process record of ", size, " bytes is too short");
      uint32_t klen = load<uint32_t>(p);
      if (8 + uint64_t{klen} > size) return "process key overruns its record";
      uint32_t vlen = load<uint32_t>(p + 4 + klen);
      if (8 + uint64_t{klen} + vlen > size) return "process value overruns its record";
      trace.process_info.emplace_back(text(p + 4, klen), text(p + 8 + klen, vlen));
      return {};
    }
    case RecordType::kDrops: {
      if (size < 16) return absl::StrCat("drops record of ", size, " bytes is too short");
      drops_[load<uint32_t>(p)] = load<uint64_t>(p + 8);
      return {};
    }
    case RecordType::kEnd: {
      if (size < kEndPayloadV1Size) return absl::StrCat("end record of ", size, " bytes is too short");
      std::memcpy(&end_, p, std::min<size_t>(size, sizeof(EndPayload)));
      have_end_ = true;
      return {};
    }
    case RecordType::kPyCode: {
      if (size < 16) return absl::StrCat("python code record of ", size, " bytes is too short");
      uint32_t id = load<uint32_t>(p), first = load<uint32_t>(p + 4), flen = load<uint32_t>(p + 8);
      if (16 + uint64_t{flen} > size) return "python file name overruns its record";
      uint32_t nlen = load<uint32_t>(p + 12 + flen);
      if (16 + uint64_t{flen} + nlen > size) return "python function name overruns its record";
      PythonCode code;
      code.file = text(p + 12, flen);
      code.function = text(p + 16 + flen, nlen);
      code.first_line = first;
      trace.python_code[id] = std::move(code);
      return {};
    }
    case RecordType::kPyStack: {
      if (size < 8) return absl::StrCat("python stack record of ", size, " bytes is too short");
      uint32_t id = load<uint32_t>(p), depth = load<uint32_t>(p + 4);
      if (depth > kMaxPythonDepth) return absl::StrCat("python stack depth ", depth, " exceeds ", kMaxPythonDepth);
      if (8 + uint64_t{depth} * 8 > size) {
        return absl::StrCat("python stack of depth ", depth, " does not fit its record");
      }
      std::vector<PythonFrame> frames(depth);
      for (uint32_t i = 0; i < depth; ++i) {
        uint64_t packed = load<uint64_t>(p + 8 + size_t{i} * 8);
        frames[i] = PythonFrame{static_cast<uint32_t>(packed >> 32), static_cast<uint32_t>(packed)};
      }
      trace.python_stacks[id] = std::move(frames);
      return {};
    }
    case RecordType::kGpuActivity: {
      if (size < 8) return absl::StrCat("gpu activity record of ", size, " bytes is too short");
      uint32_t entry = load<uint32_t>(p);
      if (entry < sizeof(GpuRecord) || entry > kMaxEventSize) {
        return absl::StrCat("gpu activity entry size ", entry, " is not supported");
      }
      if ((size - 8) % entry != 0) {
        return absl::StrCat("gpu activity payload of ", size - 8, " bytes is not a multiple of ", entry);
      }
      const size_t n = (size - 8) / entry;
      for (size_t i = 0; i < n; ++i) {
        GpuRecord r;
        std::memcpy(&r, p + 8 + i * entry, sizeof(GpuRecord));  // longer entries: the first 64 bytes
        add_gpu_record(trace, r);
      }
      return {};
    }
    case RecordType::kString: {
      uint32_t id = 0;
      std::string value;
      std::string error = numbered_text(p, size, "string", "string", &id, &value);
      if (error.empty()) trace.strings[id] = std::move(value);
      return error;
    }
  }
  return {};  // unknown record types are skipped: newer writers may add some
}

}  // namespace syncscope
