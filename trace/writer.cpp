#include "trace/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace syncscope {
namespace {

// mkdir -p: every missing component, EEXIST is fine.
bool make_directories(const std::string& dir, std::string* error) {
  std::string path;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    path = dir.substr(0, pos);
    if (path.empty()) continue;
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      *error = "cannot create directory " + path + ": " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

bool write_all(int fd, const unsigned char* data, size_t size, std::string* error) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = std::strerror(errno);
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

TraceWriter::~TraceWriter() { close(); }

bool TraceWriter::open(const std::string& dir, const FileHeader& header, std::string* error) {
  if (!make_directories(dir, error)) return false;
  // An exec'd process keeps its pid: the first free -N suffix wins.
  for (int n = 0; n < 10000; ++n) {
    std::string path = dir + "/" + std::to_string(header.pid) + "-" + std::to_string(n) + kTraceFileSuffix;
    int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0) {
      path_ = path;
      return open_fd(fd, header, error);
    }
    if (errno != EEXIST) {
      *error = "cannot create " + path + ": " + std::strerror(errno);
      return false;
    }
  }
  *error = "too many trace files for pid " + std::to_string(header.pid) + " in " + dir;
  return false;
}

bool TraceWriter::open_fd(int fd, const FileHeader& header, std::string* error) {
  fd_ = fd;
  buffer_.clear();
  if (!write_all(fd_, reinterpret_cast<const unsigned char*>(&header), sizeof(header), error)) {
    close_without_flush();
    return false;
  }
  return true;
}

void* TraceWriter::begin_record(RecordType type, uint32_t size) {
  RecordHeader rh{static_cast<uint32_t>(type), size};
  size_t at = buffer_.size();
  buffer_.resize(at + sizeof(rh) + padded_size(size), 0);
  std::memcpy(buffer_.data() + at, &rh, sizeof(rh));
  return buffer_.data() + at + sizeof(rh);
}

void TraceWriter::add_record(RecordType type, const void* payload, uint32_t size) {
  void* out = begin_record(type, size);
  if (size > 0) std::memcpy(out, payload, size);
}

void TraceWriter::add_events(const Event* events, size_t count) {
  constexpr size_t kPerRecord = kMaxRecordPayload / sizeof(Event);
  while (count > 0) {
    size_t n = count < kPerRecord ? count : kPerRecord;
    add_record(RecordType::kEvents, events, static_cast<uint32_t>(n * sizeof(Event)));
    events += n;
    count -= n;
  }
}

void TraceWriter::add_stack(uint32_t id, const uint64_t* pcs, uint32_t depth) {
  if (depth > kMaxStackDepth) depth = kMaxStackDepth;
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kStack, 8 + depth * 8));
  std::memcpy(out, &id, 4);
  std::memcpy(out + 4, &depth, 4);
  std::memcpy(out + 8, pcs, depth * 8);
}

void TraceWriter::add_module(uint64_t start, uint64_t end, uint64_t bias, std::string_view path) {
  uint32_t len = static_cast<uint32_t>(path.size() > 4096 ? 4096 : path.size());
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kModule, 28 + len));
  std::memcpy(out, &start, 8);
  std::memcpy(out + 8, &end, 8);
  std::memcpy(out + 16, &bias, 8);
  std::memcpy(out + 24, &len, 4);
  std::memcpy(out + 28, path.data(), len);
}

void TraceWriter::add_thread(uint32_t tid, std::string_view name) {
  uint32_t len = static_cast<uint32_t>(name.size() > 256 ? 256 : name.size());
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kThread, 8 + len));
  std::memcpy(out, &tid, 4);
  std::memcpy(out + 4, &len, 4);
  std::memcpy(out + 8, name.data(), len);
}

void TraceWriter::add_process_info(std::string_view key, std::string_view value) {
  uint32_t klen = static_cast<uint32_t>(key.size() > 256 ? 256 : key.size());
  uint32_t vlen = static_cast<uint32_t>(value.size() > (1u << 20) ? (1u << 20) : value.size());
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kProcess, 8 + klen + vlen));
  std::memcpy(out, &klen, 4);
  std::memcpy(out + 4, key.data(), klen);
  std::memcpy(out + 4 + klen, &vlen, 4);
  std::memcpy(out + 8 + klen, value.data(), vlen);
}

void TraceWriter::add_drops(uint32_t tid, uint64_t dropped_total) {
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kDrops, 16));
  uint32_t reserved = 0;
  std::memcpy(out, &tid, 4);
  std::memcpy(out + 4, &reserved, 4);
  std::memcpy(out + 8, &dropped_total, 8);
}

void TraceWriter::add_end(const EndPayload& end) { add_record(RecordType::kEnd, &end, sizeof(end)); }

void TraceWriter::add_python_code(uint32_t id, uint32_t first_line, std::string_view file, std::string_view name) {
  uint32_t flen = static_cast<uint32_t>(file.size() > 4096 ? 4096 : file.size());
  uint32_t nlen = static_cast<uint32_t>(name.size() > 1024 ? 1024 : name.size());
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kPyCode, 16 + flen + nlen));
  std::memcpy(out, &id, 4);
  std::memcpy(out + 4, &first_line, 4);
  std::memcpy(out + 8, &flen, 4);
  std::memcpy(out + 12, file.data(), flen);
  std::memcpy(out + 12 + flen, &nlen, 4);
  std::memcpy(out + 16 + flen, name.data(), nlen);
}

void TraceWriter::add_python_stack(uint32_t id, const uint64_t* frames, uint32_t depth) {
  if (depth > kMaxPythonDepth) depth = kMaxPythonDepth;
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kPyStack, 8 + depth * 8));
  std::memcpy(out, &id, 4);
  std::memcpy(out + 4, &depth, 4);
  std::memcpy(out + 8, frames, depth * 8);
}

bool TraceWriter::flush(std::string* error) {
  if (fd_ < 0) {
    buffer_.clear();
    return true;
  }
  if (buffer_.empty()) return true;
  bool ok = write_all(fd_, buffer_.data(), buffer_.size(), error);
  buffer_.clear();
  if (!ok) close_without_flush();
  return ok;
}

void TraceWriter::close() {
  std::string ignored;
  flush(&ignored);
  close_without_flush();
}

void TraceWriter::close_without_flush() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
}

}  // namespace syncscope
