// Writing small traces for the tests: through TraceWriter, or byte by byte
// (RawTrace) for inputs the writer would never produce.
#pragma once

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "trace/format.h"
#include "trace/writer.h"

namespace syncscope::testing {

// A fresh, empty (not yet created) directory under the system temp dir.
inline std::string temp_dir(const std::string& name) {
  std::string dir =
      (std::filesystem::temp_directory_path() / ("syncscope-trace-test-" + std::to_string(getpid()) + "-" + name))
          .string();
  std::filesystem::remove_all(dir);
  return dir;
}

inline FileHeader make_header(uint32_t pid) {
  FileHeader h{};
  std::memcpy(h.magic, kTraceMagic, sizeof(h.magic));
  h.version = kTraceVersion;
  h.header_size = sizeof(FileHeader);
  h.pid = pid;
  h.ppid = 1;
  h.start_monotonic_ns = 1000;
  h.start_realtime_ns = 2000;
  h.event_size = sizeof(Event);
  return h;
}

inline Event make_event(uint16_t api, uint64_t start, uint64_t end, uint32_t stack = 0) {
  Event e{};
  e.api = api;
  e.start_ns = start;
  e.end_ns = end;
  e.stack_id = stack;
  e.tid = 7;
  e.device = -1;
  return e;
}

inline bool same_event(const Event& a, const Event& b) { return std::memcmp(&a, &b, sizeof(Event)) == 0; }

inline std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::vector<unsigned char> bytes(in ? static_cast<size_t>(in.tellg()) : 0);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

inline void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(size));
}

inline void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  write_bytes(path, bytes, bytes.size());
}

// One record as found in a file: where it starts and ends (padding included).
struct RecordSpan {
  uint32_t type = 0;
  uint32_t size = 0;
  size_t begin = 0;
  size_t end = 0;
};

// Walks a well-formed file's records (test side, independent of the reader).
inline std::vector<RecordSpan> record_spans(const std::vector<unsigned char>& bytes) {
  std::vector<RecordSpan> spans;
  size_t offset = sizeof(FileHeader);
  while (offset + sizeof(RecordHeader) <= bytes.size()) {
    RecordHeader rh;
    std::memcpy(&rh, bytes.data() + offset, sizeof(rh));
    RecordSpan span{rh.type, rh.size, offset, offset + sizeof(rh) + padded_size(rh.size)};
    if (span.end > bytes.size()) break;
    spans.push_back(span);
    offset = span.end;
  }
  return spans;
}

// A trace assembled byte by byte.
class RawTrace {
 public:
  explicit RawTrace(const FileHeader& header) { append(&header, sizeof(header)); }

  // Appends a record with `size` payload bytes from `payload`, zero-padded;
  // returns the offset of its RecordHeader.
  size_t add(uint32_t type, const void* payload, uint32_t size) {
    size_t at = bytes.size();
    RecordHeader rh{type, size};
    append(&rh, sizeof(rh));
    append(payload, size);
    bytes.resize(bytes.size() + (padded_size(size) - size), 0);
    return at;
  }
  size_t add(RecordType type, const void* payload, uint32_t size) {
    return add(static_cast<uint32_t>(type), payload, size);
  }
  size_t add(RecordType type, const std::vector<unsigned char>& payload) {
    return add(type, payload.data(), static_cast<uint32_t>(payload.size()));
  }
  size_t add_events(const Event* events, size_t n) {
    return add(RecordType::kEvents, events, static_cast<uint32_t>(n * sizeof(Event)));
  }
  size_t add_end(uint64_t events_written, uint64_t dropped) {
    EndPayload end{1, events_written, dropped, 0};
    return add(RecordType::kEnd, &end, sizeof(end));
  }
  void save(const std::string& path) const { write_bytes(path, bytes); }

  std::vector<unsigned char> bytes;

 private:
  void append(const void* data, size_t size) {
    if (size == 0) return;
    size_t at = bytes.size();
    bytes.resize(at + size);  // resize + memcpy: GCC 12 misreads insert() here (-Wstringop-overflow)
    std::memcpy(bytes.data() + at, data, size);
  }
};

// Little-endian payload builder.
struct Payload {
  std::vector<unsigned char> bytes;
  Payload& u32(uint32_t v) { return raw(&v, 4); }
  Payload& u64(uint64_t v) { return raw(&v, 8); }
  Payload& str(const std::string& s) { return raw(s.data(), s.size()); }
  Payload& raw(const void* p, size_t n) {
    size_t at = bytes.size();
    bytes.resize(at + n);
    if (n > 0) std::memcpy(bytes.data() + at, p, n);
    return *this;
  }
};

}  // namespace syncscope::testing
