#include "report/symbolizer.h"

#include <cxxabi.h>
#include <elf.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

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
  void load(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return;
    std::vector<unsigned char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (data.size() < sizeof(Elf64_Ehdr) || std::memcmp(data.data(), ELFMAG, SELFMAG) != 0 ||
        data[EI_CLASS] != ELFCLASS64) {
      return;
    }
    Elf64_Ehdr eh;
    std::memcpy(&eh, data.data(), sizeof(eh));
    if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shoff + uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr) > data.size()) {
      return;
    }
    std::vector<Elf64_Shdr> sections(eh.e_shnum);
    std::memcpy(sections.data(), data.data() + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
    // Prefer the full symbol table; stripped libraries keep only .dynsym.
    for (uint32_t wanted : {uint32_t{SHT_SYMTAB}, uint32_t{SHT_DYNSYM}}) {
      for (const Elf64_Shdr& sh : sections) {
        if (sh.sh_type != wanted || sh.sh_link >= sections.size()) continue;
        const Elf64_Shdr& strtab = sections[sh.sh_link];
        if (sh.sh_offset + sh.sh_size > data.size() || strtab.sh_offset + strtab.sh_size > data.size()) continue;
        size_t count = sh.sh_size / sizeof(Elf64_Sym);
        for (size_t i = 0; i < count; ++i) {
          Elf64_Sym sym;
          std::memcpy(&sym, data.data() + sh.sh_offset + i * sizeof(Elf64_Sym), sizeof(sym));
          int type = ELF64_ST_TYPE(sym.st_info);
          if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_value == 0 || sym.st_name >= strtab.sh_size) {
            continue;
          }
          const char* name = reinterpret_cast<const char*>(data.data() + strtab.sh_offset + sym.st_name);
          size_t max = strtab.sh_size - sym.st_name;
          symbols_.push_back({sym.st_value, sym.st_size, std::string(name, strnlen(name, max))});
        }
      }
      if (!symbols_.empty()) break;
    }
    std::sort(symbols_.begin(), symbols_.end(),
              [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
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
