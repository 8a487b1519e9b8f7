// The file front end of the ELF reader (elf_image.h): an ELF file mapped
// read-only, for the symbolizer and the injector. Mapping rather than
// reading: libtorch_cuda.so is about a gigabyte and only its headers, symbol
// tables and notes (a few MiB) are ever touched, so only those pages are read.
// Never used inside the target process (the preload reads loaded objects in
// memory instead).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "elf/elf_image.h"

namespace syncscope::elf {

class ElfFile {
 public:
  enum class Status {
    kClosed,      // nothing opened yet
    kOk,          // an ELF64 little-endian object: image() is usable
    kCannotOpen,  // missing, unreadable, or not a regular file
    kNotUsable,   // not ELF, truncated, or another class or byte order (machine() may still be known)
  };

  ElfFile() = default;
  ~ElfFile();
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  // Maps `path`; status() and error() say how that went.
  Status open(const std::string& path);
  Status status() const { return status_; }
  // "cannot open PATH: reason" or "PATH: not a usable ELF file (reason)"; "" when kOk.
  const std::string& error() const { return error_; }

  // e_machine of any ELF file (ELF32 or ELF64, either byte order); 0 when not ELF.
  uint16_t machine() const { return machine_; }
  const ElfImage& image() const { return image_; }

 private:
  void close();

  Status status_ = Status::kClosed;
  std::string error_;
  void* map_ = nullptr;
  size_t size_ = 0;
  uint16_t machine_ = 0;
  ElfImage image_;
};

}  // namespace syncscope::elf
