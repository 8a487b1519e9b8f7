#include "sites/symbolizer.h"

#include <cxxabi.h>
#include <elf.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "elf/elf_file.h"
#include "sites/recorded_files.h"
#include "sites/report_warnings.h"

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

// Function symbols of one ELF file, sorted by address. The file is read by
// the ELF reader (elf/elf_file.h), which maps it: libtorch_cuda.so is about
// a gigabyte, its symbol tables a few MiB, and only those pages are read.
class ElfSymbols {
 public:
  struct Symbol {
    uint64_t address;
    uint64_t size;
    int rank;          // aliases at one address: the best-known name wins (lower rank)
    std::string name;  // mangled; demangled on lookup
  };

  ElfSymbols() = default;
  explicit ElfSymbols(const elf::ElfImage& image) { load(image); }

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
  static int add_symbol(const elf::SymbolEntry& entry, void* data) {
    const Elf64_Sym& sym = *entry.sym;
    int type = ELF64_ST_TYPE(sym.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_value == 0 || sym.st_shndx == SHN_UNDEF) return 0;
    // Exported names (memcpy) before internal aliases (__GI_memcpy), sized before unsized.
    int bind = ELF64_ST_BIND(sym.st_info);
    int rank = (bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 2 : 4) + (sym.st_size == 0 ? 1 : 0);
    static_cast<std::vector<Symbol>*>(data)->push_back({sym.st_value, sym.st_size, rank, entry.name});
    return 0;
  }

  void load(const elf::ElfImage& image) {
    // Prefer the full symbol table; stripped libraries keep only .dynsym.
    for (uint32_t table : {uint32_t{SHT_SYMTAB}, uint32_t{SHT_DYNSYM}}) {
      image.for_each_section_symbol(table, add_symbol, &symbols_);
      if (!symbols_.empty()) break;
    }
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

  std::vector<Symbol> symbols_;
};

// One module file's symbols, or why they are not used.
struct ModuleSymbols {
  ElfSymbols symbols;
  bool changed = false;  // not the build that was recorded
};

namespace {

std::string changed_message(const std::string& path, const std::string& recorded, const elf::BuildId& on_disk) {
  char now[2 * elf::BuildId::kMaxSize + 1];
  return path + " is not the file that was recorded (build-id " + recorded + " then, " +
         (on_disk.empty() ? std::string("none") : std::string(elf::build_id_hex(on_disk, now, sizeof(now)))) +
         " now): rebuilt or replaced since; its frames are shown as module+offset, not named";
}

// "[vdso]", "[heap]": kernel-provided or anonymous mappings, no file to read.
std::unique_ptr<ModuleSymbols> read_symbols(const std::string& path, const std::string& recorded_build_id) {
  auto out = std::make_unique<ModuleSymbols>();
  if (path.empty() || path.front() == '[' || !report_reads_recorded_files()) return out;
  elf::ElfFile file;
  if (file.open(path) != elf::ElfFile::Status::kOk) return out;
  if (!recorded_build_id.empty()) {
    const elf::BuildId on_disk = file.image().build_id();
    char hex[2 * elf::BuildId::kMaxSize + 1];
    if (recorded_build_id != elf::build_id_hex(on_disk, hex, sizeof(hex))) {
      out->changed = true;
      warn_once(changed_message(path, recorded_build_id, on_disk));
      return out;
    }
  }
  out->symbols = ElfSymbols(file.image());
  return out;
}

}  // namespace

Symbolizer::Symbolizer(const ProcessTrace& trace) : trace_(trace) {}
Symbolizer::~Symbolizer() = default;

const ModuleSymbols& Symbolizer::symbols_for(const Module& module) {
  std::string path = module.path;
  if (path.empty()) path = trace_.info("exe");
  // A path loaded twice (a library rebuilt and reloaded mid-run) may have
  // two recorded builds: each is checked on its own.
  const std::string key = path + '\0' + module.build_id;
  auto it = files_.find(key);
  if (it == files_.end()) it = files_.emplace(key, read_symbols(path, module.build_id)).first;
  return *it->second;
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
    const ModuleSymbols& file = symbols_for(*module);
    frame.module_changed = file.changed;
    if (const ElfSymbols::Symbol* sym = file.changed ? nullptr : file.symbols.find(address)) {
      frame.symbol = demangle(sym->name);
      frame.offset = pc - module->bias - sym->address;
    }
  }
  cache_.emplace(key, frame);
  return frame;
}

}  // namespace syncscope
