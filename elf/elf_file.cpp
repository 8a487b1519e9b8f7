#include "elf/elf_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace syncscope::elf {

ElfFile::~ElfFile() { close(); }

void ElfFile::close() {
  if (map_ != nullptr) ::munmap(map_, size_);
  map_ = nullptr;
  size_ = 0;
  machine_ = 0;
  image_ = ElfImage();
  error_.clear();
  status_ = Status::kClosed;
}

ElfFile::Status ElfFile::open(const std::string& path) {
  close();
  auto cannot_open = [&](const char* why) {
    error_ = "cannot open " + path + ": " + why;
    return status_ = Status::kCannotOpen;
  };
  auto not_usable = [&](const char* why) {
    error_ = path + ": not a usable ELF file (" + why + ")";
    return status_ = Status::kNotUsable;
  };
  int fd;
  do {
    // O_NONBLOCK: opening a FIFO named by a trace must not wait for a writer
    // (it is refused as not regular just below).
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return cannot_open(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return cannot_open("not a regular file");
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ < EI_NIDENT + 4) {
    ::close(fd);
    size_ = 0;
    return not_usable("shorter than an ELF header");
  }
  map_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);  // the mapping keeps the file
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    size_ = 0;
    return cannot_open(std::strerror(errno));
  }
  const auto* ident = static_cast<const unsigned char*>(map_);
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0) return not_usable("no ELF magic");
  // e_ident and e_type precede e_machine in both ELF32 and ELF64 headers.
  const unsigned char* m = ident + EI_NIDENT + 2;
  machine_ =
      ident[EI_DATA] == ELFDATA2MSB ? static_cast<uint16_t>(m[0] << 8 | m[1]) : static_cast<uint16_t>(m[0] | m[1] << 8);
  const char* why = nullptr;
  if (!ElfImage::from_file(map_, size_, &image_, &why)) return not_usable(why);
  return status_ = Status::kOk;
}

}  // namespace syncscope::elf
