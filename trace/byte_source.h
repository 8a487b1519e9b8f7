// Where the trace parser gets a file's bytes: from memory (the fuzzer, a
// trace already read) or from the file itself through a window that slides
// forward, so that reading a trace never holds the whole file (a day-long
// trace is gigabytes; the parser needs one record at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace syncscope {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Makes bytes [offset, offset + n) readable through at(offset); false when
  // the input ends before them (or could not be read: error() says why).
  virtual bool fetch(uint64_t offset, size_t n) = 0;
  // Valid after a successful fetch(offset, n), for n bytes, until the next fetch.
  virtual const unsigned char* at(uint64_t offset) const = 0;
  // The input's size as far as known (a file's size when opened; it may
  // still grow): for messages only.
  virtual uint64_t size_hint() const = 0;
  // Why the last fetch failed other than by reaching the end; "" otherwise.
  virtual std::string error() const { return {}; }
};

class MemoryBytes final : public ByteSource {
 public:
  explicit MemoryBytes(std::string_view bytes) : bytes_(bytes) {}
  bool fetch(uint64_t offset, size_t n) override { return offset <= bytes_.size() && n <= bytes_.size() - offset; }
  const unsigned char* at(uint64_t offset) const override {
    return reinterpret_cast<const unsigned char*>(bytes_.data()) + offset;
  }
  uint64_t size_hint() const override { return bytes_.size(); }

 private:
  std::string_view bytes_;
};

// A regular file read with pread into a window of at least kWindowBytes that
// moves forward as the parser does (and back, for its second pass): memory
// stays at the window plus the largest record, whatever the file's size.
// Reads until end of file, so a file still growing is read as far as it is.
class FileBytes final : public ByteSource {
 public:
  static constexpr size_t kWindowBytes = 4u << 20;
  // The errors read_trace_file has always given: not found, permission, not
  // a regular file (a FIFO or a device would hang or never end).
  static absl::StatusOr<std::unique_ptr<FileBytes>> open(const std::string& path);
  ~FileBytes() override;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  bool fetch(uint64_t offset, size_t n) override;
  const unsigned char* at(uint64_t offset) const override { return window_.get() + (offset - base_); }
  uint64_t size_hint() const override { return size_; }
  std::string error() const override { return error_; }

 private:
  FileBytes(int fd, std::string path, uint64_t size) : fd_(fd), path_(std::move(path)), size_(size) {}
  int fd_;
  std::string path_;
  uint64_t size_;
  uint64_t base_ = 0;                         // file offset of window_[0]
  std::unique_ptr<unsigned char[]> window_;  // bytes [base_, base_ + length_) of the file
  size_t length_ = 0;
  std::string error_;
};

}  // namespace syncscope
