// TraceWriter: runs on the collector thread inside the target process.
// Standard library and POSIX only; nothing here throws (an allocation failure
// drops the record instead), and an I/O error stops the writer for good.
#include "trace/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

namespace syncscope {
namespace {

// Longest strings a record carries; longer ones are cut (docs/trace-format.md).
constexpr uint32_t kMaxPathLen = 4096;  // module paths, Python file names
constexpr uint32_t kMaxThreadNameLen = 256;
constexpr uint32_t kMaxKeyLen = 256;
constexpr uint32_t kMaxValueLen = 1u << 20;
constexpr uint32_t kMaxFunctionNameLen = 1024;
constexpr uint32_t kMaxStringLen = 65536;  // kString: kernel names (long template instantiations)

void set_error(std::string* error, const char* what, const std::string& path, int err) {
  if (error == nullptr) return;
  *error = what;
  if (!path.empty()) {
    *error += ' ';
    *error += path;
  }
  *error += ": ";
  *error += std::strerror(err);
}

uint32_t capped(size_t size, uint32_t limit) { return size > limit ? limit : static_cast<uint32_t>(size); }

// mkdir -p: every missing component; EEXIST is fine (a later open() reports a
// component that exists but is not a directory).
bool make_directories(const std::string& dir, std::string* error) {
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    std::string path = dir.substr(0, pos);
    if (path.empty() || path.back() == '/') continue;
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
      set_error(error, "cannot create directory", path, errno);
      return false;
    }
  }
  return true;
}

// Writes everything, retrying on EINTR and short writes. Returns 0 or errno.
int write_all(int fd, const unsigned char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;  // cannot happen for a regular file; never spin
    data += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

void put32(unsigned char* out, uint32_t value) { std::memcpy(out, &value, 4); }
void put64(unsigned char* out, uint64_t value) { std::memcpy(out, &value, 8); }
void put_bytes(unsigned char* out, const void* data, size_t size) {
  if (size > 0) std::memcpy(out, data, size);
}

}  // namespace

TraceWriter::~TraceWriter() { close(); }

bool TraceWriter::open(const std::string& dir_in, const FileHeader& header, std::string* error) {
  if (file_.held()) close();
  const std::string dir = dir_in.empty() ? std::string(".") : dir_in;
  if (!make_directories(dir, error)) return false;
  // An exec'd process keeps its pid: the first free -N suffix wins.
  const std::string prefix = dir + "/" + std::to_string(header.pid) + "-";
  for (int n = 0; n < 100000; ++n) {
    std::string path = prefix + std::to_string(n) + kTraceFileSuffix;
    int fd;
    do {
      // Only its owner reads it: a trace holds the command line (tokens in argv).
      fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
    } while (fd < 0 && errno == EINTR);
    if (fd >= 0) {
      if (!open_fd(fd, header, error)) {
        ::unlink(path.c_str());  // a file without a header would only confuse readers
        return false;
      }
      path_ = path;
      return true;
    }
    if (errno != EEXIST) {
      set_error(error, "cannot create", path, errno);
      return false;
    }
  }
  if (error != nullptr) *error = "too many trace files for pid " + std::to_string(header.pid) + " in " + dir;
  return false;
}

bool TraceWriter::open_fd(int fd, const FileHeader& header_in, std::string* error) {
  if (file_.held()) close();
  if (!file_.adopt(fd)) {
    set_error(error, "cannot use the trace's descriptor", "", errno);
    return false;
  }
  failed_ = false;
  reopened_ = 0;
  path_.clear();
  // Records buffered before the file was opened follow the header at the next flush.
  // The writer knows the framing it produces: never let a caller's header
  // disagree with the records that follow it.
  FileHeader header = header_in;
  std::memcpy(header.magic, kTraceMagic, sizeof(header.magic));
  header.version = kTraceVersion;
  header.header_size = sizeof(FileHeader);
  header.event_size = sizeof(Event);
  int err = write_all(file_.number(), reinterpret_cast<const unsigned char*>(&header), sizeof(header));
  if (err != 0) {
    set_error(error, "cannot write the trace header", "", err);
    close_without_flush();
    return false;
  }
  written_bytes_ = sizeof(header);
  return true;
}

void* TraceWriter::begin_record(RecordType type, uint32_t size) {
  if (failed_ || size > kMaxRecordPayload) return nullptr;
  const RecordHeader rh{static_cast<uint32_t>(type), size};
  const size_t at = buffer_.size();
  try {
    buffer_.resize(at + sizeof(rh) + padded_size(size), 0);  // zero padding included
  } catch (...) {                                            // out of memory: lose this record, never the process
    return nullptr;
  }
  std::memcpy(buffer_.data() + at, &rh, sizeof(rh));
  return buffer_.data() + at + sizeof(rh);
}

void TraceWriter::add_record(RecordType type, const void* payload, uint32_t size) {
  if (void* out = begin_record(type, size)) put_bytes(static_cast<unsigned char*>(out), payload, size);
}

size_t TraceWriter::add_events(const Event* events, size_t count) {
  if (events == nullptr) return 0;
  constexpr size_t kPerRecord = kMaxRecordPayload / sizeof(Event);
  size_t kept = 0;
  while (count > 0) {
    size_t n = count < kPerRecord ? count : kPerRecord;
    if (void* out = begin_record(RecordType::kEvents, static_cast<uint32_t>(n * sizeof(Event)))) {
      put_bytes(static_cast<unsigned char*>(out), events, static_cast<uint32_t>(n * sizeof(Event)));
      kept += n;
    }
    events += n;
    count -= n;
  }
  return kept;
}

bool TraceWriter::add_launch_sequence(uint32_t id, const Event* shapes, uint32_t count) {
  if (shapes == nullptr || count == 0 || uint64_t{count} * sizeof(Event) + 8 > kMaxRecordPayload) return false;
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kLaunchSequence, 8 + count * sizeof(Event)));
  if (out == nullptr) return false;
  std::memcpy(out, &id, 4);
  std::memcpy(out + 4, &count, 4);
  std::memcpy(out + 8, shapes, size_t{count} * sizeof(Event));
  return true;
}

size_t TraceWriter::add_launch_runs(const LaunchRun* runs, size_t count) {
  if (runs == nullptr) return 0;
  constexpr size_t kPerRecord = kMaxRecordPayload / sizeof(LaunchRun);
  size_t kept = 0;
  while (count > 0) {
    const size_t n = count < kPerRecord ? count : kPerRecord;
    if (void* out = begin_record(RecordType::kLaunchRuns, static_cast<uint32_t>(n * sizeof(LaunchRun)))) {
      std::memcpy(out, runs, n * sizeof(LaunchRun));
      kept += n;
    }
    runs += n;
    count -= n;
  }
  return kept;
}

void TraceWriter::add_frames(RecordType type, uint32_t id, const uint64_t* frames, uint32_t depth, uint32_t max_depth) {
  if (frames == nullptr) depth = 0;
  if (depth > max_depth) depth = max_depth;  // innermost frames kept
  auto* out = static_cast<unsigned char*>(begin_record(type, 8 + depth * 8));
  if (out == nullptr) return;
  put32(out, id);
  put32(out + 4, depth);
  put_bytes(out + 8, frames, depth * 8);
}

void TraceWriter::add_stack(uint32_t id, const uint64_t* pcs, uint32_t depth) {
  add_frames(RecordType::kStack, id, pcs, depth, kMaxStackDepth);
}

void TraceWriter::add_module(uint64_t start, uint64_t end, uint64_t bias, std::string_view path) {
  uint32_t len = capped(path.size(), kMaxPathLen);
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kModule, 28 + len));
  if (out == nullptr) return;
  put64(out, start);
  put64(out + 8, end);
  put64(out + 16, bias);
  put32(out + 24, len);
  put_bytes(out + 28, path.data(), len);
}

void TraceWriter::add_module_build_id(uint64_t start, const void* id, uint32_t len) {
  if (id == nullptr || len == 0) return;
  len = capped(len, kMaxBuildIdLen);
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kModuleBuildId, 12 + len));
  if (out == nullptr) return;
  put64(out, start);
  put32(out + 8, len);
  put_bytes(out + 12, id, len);
}

void TraceWriter::add_numbered_text(RecordType type, uint32_t id, std::string_view text, uint32_t max_len) {
  uint32_t len = capped(text.size(), max_len);
  auto* out = static_cast<unsigned char*>(begin_record(type, 8 + len));
  if (out == nullptr) return;
  put32(out, id);
  put32(out + 4, len);
  put_bytes(out + 8, text.data(), len);
}

void TraceWriter::add_thread(uint32_t tid, std::string_view name) {
  add_numbered_text(RecordType::kThread, tid, name, kMaxThreadNameLen);
}

void TraceWriter::add_process_info(std::string_view key, std::string_view value) {
  uint32_t klen = capped(key.size(), kMaxKeyLen);
  uint32_t vlen = capped(value.size(), kMaxValueLen);
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kProcess, 8 + klen + vlen));
  if (out == nullptr) return;
  put32(out, klen);
  put_bytes(out + 4, key.data(), klen);
  put32(out + 4 + klen, vlen);
  put_bytes(out + 8 + klen, value.data(), vlen);
}

void TraceWriter::add_drops(uint32_t tid, uint64_t dropped_total) {
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kDrops, 16));
  if (out == nullptr) return;
  put32(out, tid);
  put32(out + 4, 0);
  put64(out + 8, dropped_total);
}

void TraceWriter::add_end(const EndPayload& end) { add_record(RecordType::kEnd, &end, sizeof(end)); }

void TraceWriter::add_python_code(uint32_t id, uint32_t first_line, std::string_view file, std::string_view name) {
  uint32_t flen = capped(file.size(), kMaxPathLen);
  uint32_t nlen = capped(name.size(), kMaxFunctionNameLen);
  auto* out = static_cast<unsigned char*>(begin_record(RecordType::kPyCode, 16 + flen + nlen));
  if (out == nullptr) return;
  put32(out, id);
  put32(out + 4, first_line);
  put32(out + 8, flen);
  put_bytes(out + 12, file.data(), flen);
  put32(out + 12 + flen, nlen);
  put_bytes(out + 16 + flen, name.data(), nlen);
}

void TraceWriter::add_python_stack(uint32_t id, const uint64_t* frames, uint32_t depth) {
  add_frames(RecordType::kPyStack, id, frames, depth, kMaxPythonDepth);
}

void TraceWriter::add_gpu_records(const GpuRecord* records, size_t count) {
  if (records == nullptr) return;
  constexpr size_t kPerRecord = (kMaxRecordPayload - 8) / sizeof(GpuRecord);
  while (count > 0) {
    size_t n = count < kPerRecord ? count : kPerRecord;
    auto* out = static_cast<unsigned char*>(
        begin_record(RecordType::kGpuActivity, static_cast<uint32_t>(8 + n * sizeof(GpuRecord))));
    if (out == nullptr) return;
    put32(out, sizeof(GpuRecord));
    put32(out + 4, 0);
    put_bytes(out + 8, records, n * sizeof(GpuRecord));
    records += n;
    count -= n;
  }
}

void TraceWriter::add_string(uint32_t id, std::string_view text) {
  add_numbered_text(RecordType::kString, id, text, kMaxStringLen);
}

int TraceWriter::usable_fd() {
  int fd = file_.get();
  if (fd >= 0 || path_.empty()) return fd;
  // Taken away (closed, or the number reused by the program): our file by
  // its path again, never a link planted there, and only if it is the same
  // file. O_APPEND: the records go on where the lost descriptor left off.
  int again;
  do {
    again = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  } while (again < 0 && errno == EINTR);
  if (again < 0) return -1;
  if (!file_.same_file(again)) {
    ::close(again);
    return -1;
  }
  file_.forget();  // the old number is the program's now
  if (!file_.adopt(again)) return -1;
  ++reopened_;
  return file_.get();
}

bool TraceWriter::flush(std::string* error) {
  if (!file_.held()) {
    // Not open, or stopped by an earlier error that was already reported.
    buffer_.clear();
    return true;
  }
  if (buffer_.empty()) return true;
  const int fd = usable_fd();
  if (fd < 0) {
    if (error != nullptr) {
      *error = "the program closed the trace's descriptor and the file could not be reopened; the rest is lost";
    }
    file_.forget();
    buffer_.clear();
    failed_ = true;
    return false;
  }
  int err = write_all(fd, buffer_.data(), buffer_.size());
  if (err == 0) written_bytes_ += buffer_.size();
  buffer_.clear();
  if (err != 0) {
    if (error != nullptr) *error = std::strerror(err);  // callers name the file
    close_without_flush();
    failed_ = true;  // later records are dropped, later flushes are no-ops
    return false;
  }
  return true;
}

bool TraceWriter::file_unlinked() const {
  struct stat st;
  const int fd = file_.get();
  return fd >= 0 && ::fstat(fd, &st) == 0 && st.st_nlink == 0;
}

void TraceWriter::close() {
  flush(nullptr);
  close_without_flush();
}

void TraceWriter::close_without_flush() {
  // No allocation or deallocation here: a forked child calls it.
  file_.close();  // only while it is still ours
  buffer_.clear();
}

}  // namespace syncscope
