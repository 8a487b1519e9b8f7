#include "report/symbolizer.h"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace syncscope {

std::string Frame::to_string() const {
  char buffer[64];
  if (symbol != "??") {
    std::snprintf(buffer, sizeof(buffer), "+0x%llx", static_cast<unsigned long long>(offset));
    return symbol + buffer + (module.empty() ? "" : " (" + module + ")");
  }
  std::snprintf(buffer, sizeof(buffer), "+0x%llx", static_cast<unsigned long long>(offset));
  return (module.empty() ? std::string("??") : module) + buffer;
}

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return name;
  std::string result(out);
  std::free(out);
  return result;
}

// Function symbols of one ELF file, sorted by address.
class ElfSymbols {
 public:
  struct Symbol {
    uint64_t address;
    uint64_t size;
    int rank;          // aliases at one address: the best-known name wins (lower rank)
    std::string name;  // mangled; demangled on lookup
  };

  explicit ElfSymbols(const std::string& path) { load(path); }

  const Symbol* find(uint64_t address) const {
    auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                               [](uint64_t a, const Symbol& s) { return a < s.address; });
    if (it == symbols_.begin()) return nullptr;
    --it;
    // Zero-sized symbols (hand-written assembly) cover up to the next one.
    if (it->size != 0 && address >= it->address + it->size) return nullptr;
    return &*it;
  }

 private:
  // Reads only the ELF header, the section headers and the symbol and string
  // tables (pread): libtorch_cuda.so is about a gigabyte, its tables a few MiB.
  void load(const std::string& path) {
    // "[vdso]", "[heap]": kernel-provided or anonymous mappings, no file to read.
    if (path.empty() || path.front() == '[') return;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) load_from(fd, static_cast<uint64_t>(st.st_size));
    ::close(fd);
    std::sort(symbols_.begin(), symbols_.end(), [](const Symbol& a, const Symbol& b) {
      if (a.address != b.address) return a.address < b.address;
      if (a.rank != b.rank) return a.rank < b.rank;
      // printf before _IO_printf.
      size_t ua = a.name.find_first_not_of('_'), ub = b.name.find_first_not_of('_');
      return ua != ub ? ua < ub : a.name < b.name;
    });
    // One entry per address: the first (best) alias.
    symbols_.erase(std::unique(symbols_.begin(), symbols_.end(),
                               [](const Symbol& a, const Symbol& b) { return a.address == b.address; }),
                   symbols_.end());
  }

  static bool read_at(int fd, uint64_t offset, void* buffer, size_t size) {
    auto* out = static_cast<char*>(buffer);
    while (size > 0) {
      ssize_t n = ::pread(fd, out, size, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      out += n;
      offset += static_cast<uint64_t>(n);
      size -= static_cast<size_t>(n);
    }
    return true;
  }

  // A section's bytes, or empty when it lies outside the file.
  static std::vector<char> read_section(int fd, uint64_t file_size, const Elf64_Shdr& sh) {
    std::vector<char> data;
    if (sh.sh_type == SHT_NOBITS || sh.sh_offset > file_size || sh.sh_size > file_size - sh.sh_offset) return data;
    data.resize(sh.sh_size);
    if (!read_at(fd, sh.sh_offset, data.data(), data.size())) data.clear();
    return data;
  }

  void load_from(int fd, uint64_t file_size) {
    Elf64_Ehdr eh;
    if (file_size < sizeof(eh) || !read_at(fd, 0, &eh, sizeof(eh))) return;
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB) {
      return;
    }
    if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > file_size) return;
    uint64_t count = eh.e_shnum;
    if (count == 0) {  // extended numbering: the count is in section 0's sh_size
      Elf64_Shdr first;
      if (!read_at(fd, eh.e_shoff, &first, sizeof(first))) return;
      count = first.sh_size;
    }
    if (count == 0 || count > (file_size - eh.e_shoff) / sizeof(Elf64_Shdr)) return;
    std::vector<Elf64_Shdr> sections(count);
    if (!read_at(fd, eh.e_shoff, sections.data(), count * sizeof(Elf64_Shdr))) return;
    // Prefer the full symbol table; stripped libraries keep only .dynsym.
    for (uint32_t wanted : {uint32_t{SHT_SYMTAB}, uint32_t{SHT_DYNSYM}}) {
      for (const Elf64_Shdr& sh : sections) {
        if (sh.sh_type != wanted || sh.sh_link >= sections.size()) continue;
        std::vector<char> table = read_section(fd, file_size, sh);
        std::vector<char> strings = read_section(fd, file_size, sections[sh.sh_link]);
        if (table.empty() || strings.empty()) continue;
        const size_t n = table.size() / sizeof(Elf64_Sym);
        for (size_t i = 0; i < n; ++i) {
          Elf64_Sym sym;
          std::memcpy(&sym, table.data() + i * sizeof(Elf64_Sym), sizeof(sym));
          int type = ELF64_ST_TYPE(sym.st_info);
          if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_value == 0 || sym.st_shndx == SHN_UNDEF ||
              sym.st_name >= strings.size()) {
            continue;
          }
          const char* name = strings.data() + sym.st_name;
          // Exported names (memcpy) before internal aliases (__GI_memcpy), sized before unsized.
          int bind = ELF64_ST_BIND(sym.st_info);
          int rank = (bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 2 : 4) + (sym.st_size == 0 ? 1 : 0);
          symbols_.push_back(
              {sym.st_value, sym.st_size, rank, std::string(name, strnlen(name, strings.size() - sym.st_name))});
        }
      }
      if (!symbols_.empty()) break;
    }
  }

  std::vector<Symbol> symbols_;
};

Symbolizer::Symbolizer(const ProcessTrace& trace) : trace_(trace) {}
Symbolizer::~Symbolizer() = default;

const ElfSymbols* Symbolizer::symbols_for(const Module& module) {
  std::string path = module.path;
  if (path.empty()) path = trace_.info("exe");
  auto it = files_.find(path);
  if (it == files_.end()) it = files_.emplace(path, std::make_unique<ElfSymbols>(path)).first;
  return it->second.get();
}

Frame Symbolizer::symbolize(uint64_t pc, bool innermost) {
  uint64_t key = pc * 2 + (innermost ? 1 : 0);
  auto cached = cache_.find(key);
  if (cached != cache_.end()) return cached->second;
  Frame frame;
  frame.pc = pc;
  frame.symbol = "??";
  frame.offset = pc;
  if (const Module* module = trace_.module_for(pc)) {
    frame.module_path = module->path.empty() ? trace_.info("exe") : module->path;
    size_t slash = frame.module_path.rfind('/');
    frame.module = slash == std::string::npos ? frame.module_path : frame.module_path.substr(slash + 1);
    frame.offset = pc - module->bias;
    // A return address points past the call: look up the call instruction.
    uint64_t address = pc - module->bias - (innermost ? 0 : 1);
    if (const ElfSymbols::Symbol* sym = symbols_for(*module)->find(address)) {
      frame.symbol = demangle(sym->name);
      frame.offset = pc - module->bias - sym->address;
    }
  }
  cache_.emplace(key, frame);
  return frame;
}

}  // namespace syncscope
