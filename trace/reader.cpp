// Reading a trace file back (docs/trace-format.md). The input may be cut short
// (the process was killed) or damaged: every size read from the file is
// checked against the bytes actually present before it is used, so no input
// can make the reader crash (tests/fuzz/fuzz_trace_reader), nor allocate
// more than a small multiple of the file's own size, except through
// aggregated launches: each 40-byte run puts back every launch of its
// sequence, so their memory follows the launches the file claims.
#include "trace/reader.h"

#include "trace/launch_runs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <span>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "trace/gpu_join.h"

namespace syncscope {

uint64_t ProcessTrace::calls() const {
  uint64_t n = 0;
  for (const Event& e : events) n += calls_of(e);
  return n;
}

std::string ProcessTrace::info(const std::string& key) const {
  for (const auto& [k, v] : process_info) {
    if (k == key) return v;
  }
  return {};
}

std::string_view ProcessTrace::gpu_name(const GpuRecord& record) const {
  if (record.kind != static_cast<uint8_t>(GpuKind::kKernel)) return {};
  auto it = strings.find(record.name_id);
  return it == strings.end() ? std::string_view() : std::string_view(it->second);
}

const Module* ProcessTrace::module_for(uint64_t pc) const {
  auto it = std::upper_bound(modules.begin(), modules.end(), pc,
                             [](uint64_t value, const Module& m) { return value < m.start; });
  if (it == modules.begin()) return nullptr;
  --it;
  return pc < it->end ? &*it : nullptr;
}

namespace {

// Largest per-event size a reader accepts in the header: room for growth,
// still far from anything absurd.
constexpr uint32_t kMaxEventSize = 4096;

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

// Reads the whole file. Sized by fstat, but reads until EOF so a file still
// growing (a running process) or shrinking is handled without surprises.
absl::Status read_file(const std::string& path, std::vector<unsigned char>* data) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int err = errno;
    std::string message = absl::StrCat("cannot open trace ", path, ": ", std::strerror(err));
    if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(message);
    if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(message);
    return absl::UnavailableError(message);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("not a syncscope trace: ", path, " (not a regular file)"));
  }
  data->resize(static_cast<size_t>(st.st_size) + 1);  // +1: notice growth without a second stat
  size_t have = 0;
  while (true) {
    if (have == data->size()) data->resize(data->size() * 2);
    ssize_t n = ::read(fd, data->data() + have, data->size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return absl::DataLossError(absl::StrCat("cannot read trace ", path, ": ", std::strerror(err)));
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  ::close(fd);
  data->resize(have);
  return absl::OkStatus();
}

struct ParseState {
  ParseState(ProcessTrace& t, uint32_t size, bool fold) : trace(t), event_size(size), fold(fold) {}
  ProcessTrace& trace;
  uint32_t event_size;
  bool fold;  // ReadOptions::fold_launch_runs
  std::map<uint32_t, uint64_t> drops;  // tid -> last cumulative count
  bool have_end = false;
  EndPayload end{};
  // kLaunchSequence: id -> the launches less their times (trace/launch_runs.h).
  std::unordered_map<uint32_t, std::vector<Event>> sequences;
  std::unordered_map<uint32_t, FoldedSequence> folded;  // fold: id -> its runs' folded shape
  // keep_sorted(): events [0, sorted_upto) are in start order; `merge_work`
  // counts what merging cost, `unsorted` gives up on it (one sort at the end).
  size_t sorted_upto = 0;
  uint64_t merge_work = 0;
  bool unsorted = false;
};

bool starts_before(const Event& a, const Event& b) { return a.start_ns < b.start_ns; }

// Keeps the events read so far in start order as each record adds some.
// A record's events overlap in time only those of the last few records (a
// drain writes each thread's events, then its runs of launches), so the new
// ones are sorted and merged into the tail of the old: no buffer the size
// of the whole trace is needed at the end (a third of the report's peak
// memory on a long trace, and of its time). A file whose records overlap
// much more than that (odd, or hostile) is left to one stable sort at the
// end, so the work stays linear in the events.
void keep_sorted(ParseState& s) {
  std::vector<Event>& events = s.trace.events;
  if (s.unsorted || s.sorted_upto >= events.size()) return;
  const auto added = events.begin() + static_cast<std::ptrdiff_t>(s.sorted_upto);
  std::stable_sort(added, events.end(), starts_before);
  if (s.sorted_upto > 0 && starts_before(*added, *(added - 1))) {
    // Older events starting after the first new one; equal starts keep file order.
    const auto from = std::upper_bound(events.begin(), added, *added, starts_before);
    s.merge_work += static_cast<uint64_t>(events.end() - from);
    if (s.merge_work > 8 * uint64_t{events.size()} + (uint64_t{1} << 20)) {
      s.unsorted = true;
      return;
    }
    std::inplace_merge(from, added, events.end(), starts_before);
  }
  s.sorted_upto = events.size();
}

// Parses one record's payload (`size` bytes, all present) into the trace;
// returns "" or why the record is corrupt. Unknown types are skipped.
std::string parse_record(uint32_t type, const unsigned char* p, uint32_t size, ParseState& s) {
  ProcessTrace& trace = s.trace;
  switch (static_cast<RecordType>(type)) {
    case RecordType::kEvents: {
      if (size % s.event_size != 0) {
        return absl::StrCat("events payload of ", size, " bytes is not a multiple of the event size ", s.event_size);
      }
      const size_t n = size / s.event_size;
      for (size_t i = 0; i < n; ++i) {
        Event e;
        std::memcpy(&e, p + i * s.event_size, sizeof(Event));  // newer, longer events: the first 64 bytes
        trace.events.push_back(e);
      }
      return {};
    }
    case RecordType::kLaunchSequence: {
      if (size < 8) return absl::StrCat("launch sequence record of ", size, " bytes is too short");
      const uint32_t id = load<uint32_t>(p), count = load<uint32_t>(p + 4);
      if (count == 0 || count > kMaxLaunchSequence || 8 + uint64_t{count} * s.event_size > size) {
        return absl::StrCat("launch sequence of ", count, " launches does not fit its record (at most ",
                            kMaxLaunchSequence, ")");
      }
      std::vector<Event> shapes(count);
      for (uint32_t i = 0; i < count; ++i) std::memcpy(&shapes[i], p + 8 + size_t{i} * s.event_size, sizeof(Event));
      if (s.fold) s.folded[id] = fold_sequence(id, shapes.data(), shapes.size());
      s.sequences[id] = std::move(shapes);
      return {};
    }
    case RecordType::kLaunchRuns: {
      if (size % sizeof(LaunchRun) != 0) {
        return absl::StrCat("launch runs payload of ", size, " bytes is not a multiple of ", sizeof(LaunchRun));
      }
      for (size_t i = 0; i < size / sizeof(LaunchRun); ++i) {
        LaunchRun run;
        std::memcpy(&run, p + i * sizeof(LaunchRun), sizeof(run));
        auto it = s.sequences.find(run.sequence_id);
        if (it == s.sequences.end()) return absl::StrCat("launch run of unknown sequence ", run.sequence_id);
        if (s.fold) {
          fold_launch_run(run, s.folded[run.sequence_id], &trace.events);
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
      s.drops[load<uint32_t>(p)] = load<uint64_t>(p + 8);
      return {};
    }
    case RecordType::kEnd: {
      if (size < kEndPayloadV1Size) return absl::StrCat("end record of ", size, " bytes is too short");
      std::memcpy(&s.end, p, std::min<size_t>(size, sizeof(EndPayload)));
      s.have_end = true;
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

}  // namespace

void add_gpu_record(ProcessTrace& trace, const GpuRecord& record) {
  if (gpu_kind_is_api(record.kind)) {
    trace.gpu_api.push_back(record);
    return;
  }
  if (record.kind == static_cast<uint8_t>(GpuKind::kWindow)) {
    if (record.end_ns > record.start_ns) trace.gpu_windows.emplace_back(record.start_ns, record.end_ns);
    return;
  }
  GpuActivity a;
  static_cast<GpuRecord&>(a) = record;
  trace.gpu_activity.push_back(a);
}

namespace {

// The header and every record of a whole file's `size` bytes into a
// trace, events not yet in order: read_trace_file frees the file's bytes
// before finish_trace sorts, so the two never take memory at once.
absl::StatusOr<ProcessTrace> parse_trace(const unsigned char* bytes, size_t size, const std::string& path,
                                         const ReadOptions& options) {
  const std::span<const unsigned char> data(bytes, size);
  // The header: anything wrong here means the file cannot be read at all.
  if (data.size() < sizeof(kTraceMagic) || std::memcmp(data.data(), kTraceMagic, sizeof(kTraceMagic)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("not a syncscope trace: ", path));
  }
  if (data.size() < 12) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": file ends inside the trace header (", data.size(), " bytes)"));
  }
  const uint32_t version = load<uint32_t>(data.data() + 8);
  if (version < kOldestTraceVersion || version > kTraceVersion) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": unsupported trace version ", version,
                                                   ", this reader understands ", kOldestTraceVersion, " to ",
                                                   kTraceVersion));
  }
  if (data.size() < sizeof(FileHeader)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": file ends inside the trace header (", data.size(), " of ",
                                                   sizeof(FileHeader), " bytes)"));
  }
  ProcessTrace trace;
  trace.file = path;
  std::memcpy(&trace.header, data.data(), sizeof(FileHeader));
  const FileHeader& h = trace.header;
  if (h.header_size < sizeof(FileHeader)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": corrupt trace header (header_size ", h.header_size, " < ", sizeof(FileHeader), ")"));
  }
  if (h.header_size > data.size()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": file ends inside the trace header (header_size ",
                                                   h.header_size, ", file ", data.size(), " bytes)"));
  }
  if (h.event_size < sizeof(Event) || h.event_size > kMaxEventSize) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": unsupported event size ", h.event_size,
                                                   " (this reader understands ", sizeof(Event), " to ", kMaxEventSize,
                                                   ")"));
  }

  // Count the events first (headers, and the launch runs' sequence lengths)
  // so they are stored in one allocation, and whether to fold (ReadOptions:
  // a long trace with runs, and no GPU work, which joins each launch).
  // Bounded by the file: a sequence's length counts only as far as its
  // record holds launches.
  const size_t total = data.size();
  bool fold = false;
  {
    size_t events = 0, runs = 0, launches_in_runs = 0;
    bool gpu_work = false;
    std::unordered_map<uint32_t, uint32_t> sequence_length;
    for (size_t at = h.header_size; total - at >= sizeof(RecordHeader);) {
      RecordHeader rh;
      std::memcpy(&rh, data.data() + at, sizeof(rh));
      if (rh.size > kMaxRecordPayload || total - at - sizeof(rh) < padded_size(rh.size)) break;
      const unsigned char* payload = data.data() + at + sizeof(rh);
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
          for (size_t r = 8; r + entry <= rh.size && !gpu_work; r += entry) {
            gpu_work = gpu_kind_is_work(payload[r + offsetof(GpuRecord, kind)]);
          }
        }
      }
      at += sizeof(rh) + padded_size(rh.size);
    }
    fold = options.fold_launch_runs && runs > 0 && !gpu_work && events + launches_in_runs > options.fold_above_calls;
    // Folded, a run is one event per block and stream: reserve one, grow for the rare others.
    trace.events.reserve(events + (fold ? runs : launches_in_runs));
  }
  // The records: keep every one up to the first damage.
  ParseState state(trace, h.event_size, fold);
  trace.folded = fold;
  size_t offset = h.header_size;
  while (offset < total) {
    if (total - offset < sizeof(RecordHeader)) {
      trace.truncation = absl::StrCat("file ends inside a record at offset ", offset, " (process killed?)");
      break;
    }
    RecordHeader rh;
    std::memcpy(&rh, data.data() + offset, sizeof(rh));
    if (rh.size > kMaxRecordPayload) {
      trace.truncation = absl::StrCat("corrupt record at offset ", offset, ": payload of ", rh.size,
                                      " bytes exceeds the limit of ", kMaxRecordPayload);
      break;
    }
    const size_t padded = padded_size(rh.size);
    if (total - offset - sizeof(rh) < padded) {
      trace.truncation = absl::StrCat("file ends inside a record at offset ", offset, " (process killed?)");
      break;
    }
    std::string why = parse_record(rh.type, data.data() + offset + sizeof(rh), rh.size, state);
    if (!why.empty()) {
      trace.truncation = absl::StrCat("corrupt record at offset ", offset, ": ", why);
      break;
    }
    keep_sorted(state);
    offset += sizeof(rh) + padded;
  }

  if (state.have_end) {
    trace.events_unwritten_at_exit = state.end.events_unwritten_at_exit;
    trace.events_lost_no_memory = state.end.events_lost_no_memory;
    trace.events_over_size_limit = state.end.events_over_size_limit;
    trace.events_dropped = state.end.events_dropped + trace.events_unwritten_at_exit + trace.events_lost_no_memory +
                           trace.events_over_size_limit;
    trace.stacks_dropped = state.end.stacks_dropped;
  } else {
    for (const auto& [tid, count] : state.drops) trace.events_dropped += count;
  }
  trace.complete = state.have_end && trace.truncation.empty();
  if (!state.have_end && trace.truncation.empty()) {
    trace.truncation = "no end record (process killed or still running)";
  }
  return trace;
}

// Events and modules in order, GPU work joined to its calls.
void finish_trace(ProcessTrace& trace) {
  // Usually in order already (keep_sorted); stable_sort would still merge it.
  if (!std::is_sorted(trace.events.begin(), trace.events.end(), starts_before)) {
    std::stable_sort(trace.events.begin(), trace.events.end(), starts_before);
  }
  std::stable_sort(trace.modules.begin(), trace.modules.end(),
                   [](const Module& a, const Module& b) { return a.start < b.start; });
  join_gpu_activity(trace);
}

}  // namespace

absl::StatusOr<ProcessTrace> read_trace_file(const std::string& path, const ReadOptions& options) {
  std::vector<unsigned char> data;
  if (absl::Status status = read_file(path, &data); !status.ok()) return status;
  absl::StatusOr<ProcessTrace> trace = parse_trace(data.data(), data.size(), path, options);
  data.clear();
  data.shrink_to_fit();
  if (trace.ok()) finish_trace(*trace);
  return trace;
}

absl::StatusOr<ProcessTrace> read_trace_bytes(std::string_view bytes, const std::string& name,
                                              const ReadOptions& options) {
  absl::StatusOr<ProcessTrace> trace =
      parse_trace(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), name, options);
  if (trace.ok()) finish_trace(*trace);
  return trace;
}

absl::StatusOr<std::vector<std::string>> list_trace_files(const std::string& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return absl::NotFoundError(absl::StrCat("cannot read trace directory ", dir, ": ", ec.message()));
  const std::string_view suffix(kTraceFileSuffix);
  std::vector<std::string> files;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (name.size() > suffix.size() && std::string_view(name).substr(name.size() - suffix.size()) == suffix &&
        it->is_regular_file(type_ec)) {
      files.push_back(it->path().string());
    }
  }
  if (ec) return absl::UnavailableError(absl::StrCat("cannot read trace directory ", dir, ": ", ec.message()));
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace syncscope
