#include "trace/reader.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace syncscope {

std::string ProcessTrace::info(const std::string& key) const {
  for (const auto& [k, v] : process_info) {
    if (k == key) return v;
  }
  return {};
}

const Module* ProcessTrace::module_for(uint64_t pc) const {
  auto it = std::upper_bound(modules.begin(), modules.end(), pc,
                             [](uint64_t value, const Module& m) { return value < m.start; });
  if (it == modules.begin()) return nullptr;
  --it;
  return pc < it->end ? &*it : nullptr;
}

namespace {

template <typename T>
T load(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// Parses one record's payload into the trace; returns "" or why it is corrupt.
std::string parse_record(RecordType type, const unsigned char* p, uint32_t size, uint32_t event_size,
                         ProcessTrace& trace, std::map<uint32_t, uint64_t>& drops, bool& have_end,
                         EndPayload& end) {
  switch (type) {
    case RecordType::kEvents: {
      if (size % event_size != 0) return "events payload is not a whole number of events";
      for (uint32_t off = 0; off < size; off += event_size) {
        Event e;
        std::memcpy(&e, p + off, sizeof(Event));
        trace.events.push_back(e);
      }
      return {};
    }
    case RecordType::kStack: {
      if (size < 8) return "stack record too short";
      uint32_t id = load<uint32_t>(p), depth = load<uint32_t>(p + 4);
      if (depth > kMaxStackDepth) return absl::StrCat("stack depth ", depth, " exceeds ", kMaxStackDepth);
      if (8 + uint64_t{depth} * 8 > size) return "stack record shorter than its depth";
      std::vector<uint64_t> pcs(depth);
      if (depth > 0) std::memcpy(pcs.data(), p + 8, depth * 8);
      trace.stacks[id] = std::move(pcs);
      return {};
    }
    case RecordType::kModule: {
      if (size < 28) return "module record too short";
      uint32_t len = load<uint32_t>(p + 24);
      if (28 + uint64_t{len} > size) return "module path overruns its record";
      Module m{load<uint64_t>(p), load<uint64_t>(p + 8), load<uint64_t>(p + 16),
               std::string(reinterpret_cast<const char*>(p + 28), len)};
      trace.modules.push_back(std::move(m));
      return {};
    }
    case RecordType::kThread: {
      if (size < 8) return "thread record too short";
      uint32_t tid = load<uint32_t>(p), len = load<uint32_t>(p + 4);
      if (8 + uint64_t{len} > size) return "thread name overruns its record";
      trace.thread_names[tid] = std::string(reinterpret_cast<const char*>(p + 8), len);
      return {};
    }
    case RecordType::kProcess: {
      if (size < 8) return "process record too short";
      uint32_t klen = load<uint32_t>(p);
      if (4 + uint64_t{klen} + 4 > size) return "process key overruns its record";
      uint32_t vlen = load<uint32_t>(p + 4 + klen);
      if (8 + uint64_t{klen} + vlen > size) return "process value overruns its record";
      trace.process_info.emplace_back(std::string(reinterpret_cast<const char*>(p + 4), klen),
                                      std::string(reinterpret_cast<const char*>(p + 8 + klen), vlen));
      return {};
    }
    case RecordType::kDrops: {
      if (size < 16) return "drops record too short";
      drops[load<uint32_t>(p)] = load<uint64_t>(p + 8);
      return {};
    }
    case RecordType::kPyCode: {
      if (size < 16) return "python code record too short";
      uint32_t id = load<uint32_t>(p), first = load<uint32_t>(p + 4), flen = load<uint32_t>(p + 8);
      if (16 + uint64_t{flen} > size) return "python file name overruns its record";
      uint32_t nlen = load<uint32_t>(p + 12 + flen);
      if (16 + uint64_t{flen} + nlen > size) return "python function name overruns its record";
      trace.python_code[id] = PythonCode{std::string(reinterpret_cast<const char*>(p + 12), flen),
                                         std::string(reinterpret_cast<const char*>(p + 16 + flen), nlen), first};
      return {};
    }
    case RecordType::kPyStack: {
      if (size < 8) return "python stack record too short";
      uint32_t id = load<uint32_t>(p), depth = load<uint32_t>(p + 4);
      if (depth > kMaxPythonDepth) return absl::StrCat("python stack depth ", depth, " exceeds ", kMaxPythonDepth);
      if (8 + uint64_t{depth} * 8 > size) return "python stack record shorter than its depth";
      std::vector<PythonFrame> frames(depth);
      for (uint32_t i = 0; i < depth; ++i) {
        uint64_t packed = load<uint64_t>(p + 8 + i * 8);
        frames[i] = PythonFrame{static_cast<uint32_t>(packed >> 32), static_cast<uint32_t>(packed)};
      }
      trace.python_stacks[id] = std::move(frames);
      return {};
    }
    case RecordType::kEnd: {
      if (size < sizeof(EndPayload)) return "end record too short";
      std::memcpy(&end, p, sizeof(EndPayload));
      have_end = true;
      return {};
    }
  }
  return {};  // unknown record types are skipped: newer writers may add some
}

}  // namespace

absl::StatusOr<ProcessTrace> read_trace_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open trace ", path));
  std::vector<unsigned char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ProcessTrace trace;
  trace.file = path;
  if (data.size() < sizeof(FileHeader) || std::memcmp(data.data(), kTraceMagic, sizeof(kTraceMagic)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("not a syncscope trace: ", path));
  }
  std::memcpy(&trace.header, data.data(), sizeof(FileHeader));
  const FileHeader& h = trace.header;
  if (h.version != kTraceVersion) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": unsupported trace version ", h.version,
                                                   "; this reader understands ", kTraceVersion));
  }
  if (h.header_size < sizeof(FileHeader) || h.header_size > data.size()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": corrupt header (size ", h.header_size, ")"));
  }
  if (h.event_size < sizeof(Event) || h.event_size > 4096) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": unsupported event size ", h.event_size));
  }

  std::map<uint32_t, uint64_t> drops;
  bool have_end = false;
  EndPayload end{};
  size_t offset = h.header_size;
  while (offset < data.size()) {
    if (data.size() - offset < sizeof(RecordHeader)) {
      trace.truncation = absl::StrCat("file ends inside a record at offset ", offset, " (process killed?)");
      break;
    }
    RecordHeader rh;
    std::memcpy(&rh, data.data() + offset, sizeof(rh));
    if (rh.size > kMaxRecordPayload) {
      trace.truncation = absl::StrCat("corrupt record at offset ", offset, ": payload of ", rh.size, " bytes");
      break;
    }
    size_t padded = padded_size(rh.size);
    if (data.size() - offset - sizeof(rh) < padded) {
      trace.truncation = absl::StrCat("file ends inside a record at offset ", offset, " (process killed?)");
      break;
    }
    std::string why = parse_record(static_cast<RecordType>(rh.type), data.data() + offset + sizeof(rh), rh.size,
                                   h.event_size, trace, drops, have_end, end);
    if (!why.empty()) {
      trace.truncation = absl::StrCat("corrupt record at offset ", offset, ": ", why);
      break;
    }
    offset += sizeof(rh) + padded;
  }

  for (const auto& [tid, count] : drops) trace.events_dropped += count;
  if (have_end) {
    trace.events_dropped = end.events_dropped;
    trace.stacks_dropped = end.stacks_dropped;
  }
  trace.complete = have_end && trace.truncation.empty();
  if (!have_end && trace.truncation.empty()) {
    trace.truncation = "no end record (process killed or still running)";
  }
  std::stable_sort(trace.events.begin(), trace.events.end(),
                   [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; });
  std::sort(trace.modules.begin(), trace.modules.end(),
            [](const Module& a, const Module& b) { return a.start < b.start; });
  return trace;
}

absl::StatusOr<std::vector<std::string>> list_trace_files(const std::string& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return absl::NotFoundError(absl::StrCat("cannot read trace directory ", dir, ": ", ec.message()));
  std::vector<std::string> files;
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file(ec) && name.size() > std::strlen(kTraceFileSuffix) &&
        name.compare(name.size() - std::strlen(kTraceFileSuffix), std::string::npos, kTraceFileSuffix) == 0) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace syncscope
