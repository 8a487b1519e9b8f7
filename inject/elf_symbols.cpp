#include "inject/elf_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace syncscope::inject {
namespace {

// An open file read by offset, closing itself; every read is bounds-checked
// against the file size so a truncated or hostile file gives an error.
class ElfFile {
 public:
  ~ElfFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  absl::Status open(const std::string& path) {
    path_ = path;
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd_ < 0 || ::fstat(fd_, &st) != 0) {
      int err = errno;
      return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(err)));
    }
    size_ = static_cast<uint64_t>(st.st_size);
    return absl::OkStatus();
  }
  absl::Status read(uint64_t offset, void* out, uint64_t length) const {
    if (offset > size_ || length > size_ - offset) return corrupt("a structure lies past the end of the file");
    uint64_t done = 0;
    while (done < length) {
      ssize_t n = ::pread(fd_, static_cast<char*>(out) + done, length - done, static_cast<off_t>(offset + done));
      if (n <= 0) return corrupt(n < 0 ? std::strerror(errno) : "short read");
      done += static_cast<uint64_t>(n);
    }
    return absl::OkStatus();
  }
  template <typename T>
  absl::Status read_array(uint64_t offset, uint64_t count, std::vector<T>* out) const {
    if (count > size_ / sizeof(T) + 1) return corrupt("a table is larger than the file");
    out->resize(count);
    return read(offset, out->data(), count * sizeof(T));
  }
  absl::Status corrupt(const std::string& why) const {
    return absl::DataLossError(absl::StrCat(path_, ": not a usable ELF file (", why, ")"));
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

absl::Status read_header(const ElfFile& f, Elf64_Ehdr* h) {
  if (auto s = f.read(0, h, sizeof(*h)); !s.ok()) return s;
  if (std::memcmp(h->e_ident, ELFMAG, SELFMAG) != 0) return f.corrupt("no ELF magic");
  if (h->e_ident[EI_CLASS] != ELFCLASS64) return f.corrupt("not ELF64");
  if (h->e_ident[EI_DATA] != ELFDATA2LSB) return f.corrupt("not little-endian");
  return absl::OkStatus();
}

absl::Status read_sections(const ElfFile& f, const Elf64_Ehdr& h, std::vector<Elf64_Shdr>* sections) {
  if (h.e_shoff == 0) return f.corrupt("no section headers");
  if (h.e_shentsize != sizeof(Elf64_Shdr)) return f.corrupt("unexpected section header size");
  uint64_t count = h.e_shnum;
  if (count == 0) {
    // Extended numbering: section 0's sh_size holds the real count.
    Elf64_Shdr first{};
    if (auto s = f.read(h.e_shoff, &first, sizeof(first)); !s.ok()) return s;
    count = first.sh_size;
  }
  return f.read_array(h.e_shoff, count, sections);
}

}  // namespace

absl::StatusOr<uint64_t> elf_dynamic_symbol(const std::string& path, const std::string& name) {
  ElfFile f;
  if (auto s = f.open(path); !s.ok()) return s;
  Elf64_Ehdr h{};
  if (auto s = read_header(f, &h); !s.ok()) return s;
  std::vector<Elf64_Shdr> sections;
  if (auto s = read_sections(f, h, &sections); !s.ok()) return s;

  const Elf64_Shdr* dynsym = nullptr;
  const Elf64_Shdr* versym = nullptr;
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_type == SHT_DYNSYM) dynsym = &s;
    if (s.sh_type == SHT_GNU_versym) versym = &s;
  }
  if (dynsym == nullptr) return f.corrupt("no .dynsym section");
  if (dynsym->sh_link >= sections.size()) return f.corrupt("bad .dynsym string table link");
  const Elf64_Shdr& strtab = sections[dynsym->sh_link];

  std::vector<Elf64_Sym> symbols;
  std::vector<char> strings;
  std::vector<Elf64_Half> versions;
  if (auto s = f.read_array(dynsym->sh_offset, dynsym->sh_size / sizeof(Elf64_Sym), &symbols); !s.ok()) return s;
  if (auto s = f.read_array(strtab.sh_offset, strtab.sh_size, &strings); !s.ok()) return s;
  if (versym != nullptr) {
    if (auto s = f.read_array(versym->sh_offset, versym->sh_size / sizeof(Elf64_Half), &versions); !s.ok()) return s;
  }

  const Elf64_Sym* first_defined = nullptr;
  const Elf64_Sym* default_version = nullptr;
  for (size_t i = 0; i < symbols.size() && default_version == nullptr; ++i) {
    const Elf64_Sym& sym = symbols[i];
    if (sym.st_shndx == SHN_UNDEF || sym.st_name >= strings.size()) continue;
    unsigned bind = ELF64_ST_BIND(sym.st_info);
    if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) continue;
    // strnlen: a string table without a final NUL must not be overrun.
    const char* sym_name = strings.data() + sym.st_name;
    size_t limit = strings.size() - sym.st_name;
    if (strnlen(sym_name, limit) == limit || name != sym_name) continue;
    if (first_defined == nullptr) first_defined = &sym;
    // Bit 15 of the version index marks a hidden (non-default) version.
    bool hidden = i < versions.size() && (versions[i] & 0x8000) != 0;
    if (!hidden) default_version = &sym;
  }
  const Elf64_Sym* chosen = default_version != nullptr ? default_version : first_defined;
  if (chosen == nullptr) return absl::NotFoundError(absl::StrCat(path, " does not define ", name));
  if (ELF64_ST_TYPE(chosen->st_info) == STT_GNU_IFUNC) {
    return absl::UnimplementedError(absl::StrCat(name, " in ", path, " is an indirect function (IFUNC)"));
  }
  return static_cast<uint64_t>(chosen->st_value);
}

absl::StatusOr<uint16_t> elf_machine(const std::string& path) {
  ElfFile f;
  if (auto s = f.open(path); !s.ok()) return s;
  // e_ident and e_type precede e_machine in both ELF32 and ELF64 headers.
  unsigned char ident[EI_NIDENT + 4] = {};
  if (auto s = f.read(0, ident, sizeof(ident)); !s.ok()) return s;
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0) return f.corrupt("no ELF magic");
  const unsigned char* m = ident + EI_NIDENT + 2;
  if (ident[EI_DATA] == ELFDATA2MSB) return static_cast<uint16_t>(m[0] << 8 | m[1]);
  return static_cast<uint16_t>(m[0] | m[1] << 8);
}

}  // namespace syncscope::inject
