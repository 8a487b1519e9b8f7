#include "elf/elf_image.h"

#include <cstring>

namespace syncscope::elf {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kOwnMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kOwnMachine = EM_AARCH64;
#else
constexpr uint16_t kOwnMachine = EM_NONE;
#endif

constexpr uint64_t kMaxSectionCount = 1u << 20;  // far above any real object, far below overflow

bool is_import_type(uint16_t machine, uint32_t type, bool* plt) {
  switch (machine) {
    case EM_X86_64:
      *plt = type == R_X86_64_JUMP_SLOT;
      return type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT;
    case EM_AARCH64:
      *plt = type == R_AARCH64_JUMP_SLOT;
      return type == R_AARCH64_JUMP_SLOT || type == R_AARCH64_GLOB_DAT;
    default:
      return false;
  }
}

template <typename T>
const T* aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0 ? static_cast<const T*>(p) : nullptr;
}

uint64_t round_up(uint64_t value, uint64_t align) { return (value + align - 1) & ~(align - 1); }

// The GNU build-id among the notes of one note segment or section.
bool find_build_id(const unsigned char* p, uint64_t size, uint64_t align, BuildId* out) {
  align = align == 8 ? 8 : 4;  // notes are 4-aligned unless their container says 8
  while (size >= 12) {
    uint32_t namesz, descsz, type;
    std::memcpy(&namesz, p, 4);
    std::memcpy(&descsz, p + 4, 4);
    std::memcpy(&type, p + 8, 4);
    const uint64_t name_at = 12, desc_at = name_at + round_up(namesz, align);
    if (desc_at > size || descsz > size - desc_at) return false;  // damaged: stop
    if (type == NT_GNU_BUILD_ID && namesz == 4 && std::memcmp(p + name_at, "GNU", 4) == 0 && descsz > 0) {
      out->size = descsz < BuildId::kMaxSize ? descsz : BuildId::kMaxSize;
      std::memcpy(out->bytes, p + desc_at, out->size);
      return true;
    }
    const uint64_t next = desc_at + round_up(descsz, align);
    if (next >= size) return false;
    p += next;
    size -= next;
  }
  return false;
}

// GNU hash tables do not store the symbol count: it is one past the last
// symbol of the longest-indexed chain (the low bit of a chain entry ends it).
size_t gnu_hash_symbol_count(const ElfImage& image, uint64_t table) {
  const auto* header = aligned<uint32_t>(image.at_address(table, 16));
  if (header == nullptr) return 0;
  const uint32_t buckets = header[0], first = header[1], bloom_words = header[2];
  const uint64_t buckets_at = table + 16 + uint64_t{bloom_words} * 8;
  const auto* bucket = aligned<uint32_t>(image.at_address(buckets_at, uint64_t{buckets} * 4));
  if (bucket == nullptr) return 0;
  uint32_t last = 0;
  for (uint32_t i = 0; i < buckets; ++i) last = bucket[i] > last ? bucket[i] : last;
  if (last < first) return first;  // every bucket empty: only the unhashed symbols
  const uint64_t chain_at = buckets_at + uint64_t{buckets} * 4;
  const uint64_t available = image.bytes_at_address(chain_at) / 4;
  const auto* chain = aligned<uint32_t>(image.at_address(chain_at, available * 4));
  if (chain == nullptr) return 0;
  for (uint64_t i = last - first; i < available; ++i) {
    if ((chain[i] & 1u) != 0) return static_cast<size_t>(first + i + 1);
  }
  return 0;  // the chain runs off its segment: unknown
}

// The entries of a table at `address` of `bytes` bytes, clipped to what the
// object holds; `*count` whole entries.
template <typename T>
const T* table_at(const ElfImage& image, uint64_t address, uint64_t bytes, size_t* count) {
  const uint64_t available = image.bytes_at_address(address);
  if (bytes > available) bytes = available;
  *count = static_cast<size_t>(bytes / sizeof(T));
  const T* entries = *count > 0 ? aligned<T>(image.at_address(address, *count * sizeof(T))) : nullptr;
  if (entries == nullptr) *count = 0;
  return entries;
}

}  // namespace

bool BuildId::operator==(const BuildId& other) const {
  return size == other.size && std::memcmp(bytes, other.bytes, size) == 0;
}

char* build_id_hex(const BuildId& id, char* out, size_t out_size) {
  static const char kDigits[] = "0123456789abcdef";
  if (out_size == 0) return out;
  size_t at = 0;
  for (uint32_t i = 0; i < id.size && at + 2 < out_size; ++i) {
    out[at++] = kDigits[id.bytes[i] >> 4];
    out[at++] = kDigits[id.bytes[i] & 15];
  }
  out[at] = '\0';
  return out;
}

const char* DynamicTables::name_of(const Elf64_Sym& sym) const {
  if (strings == nullptr || sym.st_name >= strings_size) return nullptr;
  const char* name = strings + sym.st_name;
  const size_t limit = strings_size - sym.st_name;
  return strnlen(name, limit) < limit ? name : nullptr;
}

bool ElfImage::from_file(const void* data, size_t size, ElfImage* out, const char** why) {
  auto refuse = [why](const char* reason) {
    *why = reason;
    return false;
  };
  const auto* bytes = static_cast<const unsigned char*>(data);
  ElfImage image;
  image.data_ = bytes;
  image.size_ = size;
  if (size < SELFMAG || std::memcmp(bytes, ELFMAG, SELFMAG) != 0) return refuse("no ELF magic");
  if (size < sizeof(Elf64_Ehdr)) return refuse("shorter than an ELF header");
  if (bytes[EI_CLASS] != ELFCLASS64) return refuse("not ELF64");
  if (bytes[EI_DATA] != ELFDATA2LSB) return refuse("not little-endian");
  const auto* header = aligned<Elf64_Ehdr>(bytes);
  if (header == nullptr) return refuse("misaligned in memory");
  image.machine_ = header->e_machine;
  image.type_ = header->e_type;

  // Section headers: optional (the dynamic tables are found without them),
  // so damaged ones are ignored rather than refused.
  if (header->e_shoff != 0 && header->e_shentsize == sizeof(Elf64_Shdr)) {
    uint64_t count = header->e_shnum;
    const auto* first = aligned<Elf64_Shdr>(image.at_offset(header->e_shoff, sizeof(Elf64_Shdr)));
    if (count == 0 && first != nullptr) count = first->sh_size;  // extended numbering
    if (count <= kMaxSectionCount) {
      image.sections_ = aligned<Elf64_Shdr>(image.at_offset(header->e_shoff, count * sizeof(Elf64_Shdr)));
      image.section_count_ = image.sections_ != nullptr ? static_cast<size_t>(count) : 0;
    }
  }
  image.section_names_ = header->e_shstrndx;
  if (image.section_names_ == SHN_XINDEX && image.section_count_ > 0) image.section_names_ = image.sections_[0].sh_link;
  uint64_t phnum = header->e_phnum;
  if (phnum == PN_XNUM && image.section_count_ > 0) phnum = image.sections_[0].sh_info;
  if (phnum > 0) {
    if (header->e_phentsize != sizeof(Elf64_Phdr)) return refuse("unexpected program header size");
    image.phdrs_ = aligned<Elf64_Phdr>(image.at_offset(header->e_phoff, phnum * sizeof(Elf64_Phdr)));
    if (image.phdrs_ == nullptr) return refuse("program headers lie past the end of the file");
    image.phdr_count_ = static_cast<size_t>(phnum);
  }
  *out = image;
  return true;
}

ElfImage ElfImage::loaded(uintptr_t base, const Elf64_Phdr* phdrs, size_t count) {
  ElfImage image;
  image.loaded_ = true;
  image.data_ = reinterpret_cast<const unsigned char*>(base);
  image.base_ = base;
  image.machine_ = kOwnMachine;
  image.phdrs_ = phdrs;
  image.phdr_count_ = count;
  return image;
}

const void* ElfImage::at_offset(uint64_t offset, uint64_t size) const {
  if (loaded_ || offset > size_ || size > size_ - offset) return nullptr;
  return data_ + offset;
}

uint64_t ElfImage::bytes_at_address(uint64_t address) const {
  for (size_t i = 0; i < phdr_count_; ++i) {
    const Elf64_Phdr& ph = phdrs_[i];
    if (ph.p_type != PT_LOAD) continue;
    // In memory the whole segment is there (its tail zero-filled), if
    // readable; in a file only its file-backed part, and only what the
    // file really holds.
    if (loaded_ && (ph.p_flags & PF_R) == 0) continue;
    uint64_t span = loaded_ ? ph.p_memsz : ph.p_filesz;
    if (!loaded_) {
      if (ph.p_offset > size_) continue;
      if (span > size_ - ph.p_offset) span = size_ - ph.p_offset;
    }
    if (address >= ph.p_vaddr && address - ph.p_vaddr < span) return span - (address - ph.p_vaddr);
  }
  return 0;
}

const void* ElfImage::at_address(uint64_t address, uint64_t size) const {
  for (size_t i = 0; i < phdr_count_; ++i) {
    const Elf64_Phdr& ph = phdrs_[i];
    if (ph.p_type != PT_LOAD || address < ph.p_vaddr) continue;
    if (loaded_) {
      if ((ph.p_flags & PF_R) == 0 || address - ph.p_vaddr > ph.p_memsz || size > ph.p_memsz - (address - ph.p_vaddr)) {
        continue;
      }
      return data_ + address;
    }
    const uint64_t within = address - ph.p_vaddr;
    if (within > ph.p_filesz || size > ph.p_filesz - within) continue;
    return at_offset(ph.p_offset + within, size);
  }
  return nullptr;
}

const void* ElfImage::section_data(const Elf64_Shdr& section) const {
  if (section.sh_type == SHT_NOBITS) return nullptr;
  return at_offset(section.sh_offset, section.sh_size);
}

const char* ElfImage::section_name(const Elf64_Shdr& section) const {
  if (section_names_ == SHN_UNDEF || section_names_ >= section_count_) return "";
  const Elf64_Shdr& table = sections_[section_names_];
  const auto* names = static_cast<const char*>(section_data(table));
  if (names == nullptr || section.sh_name >= table.sh_size) return "";
  const size_t limit = static_cast<size_t>(table.sh_size - section.sh_name);
  return strnlen(names + section.sh_name, limit) < limit ? names + section.sh_name : "";
}

bool ElfImage::load_span(uint64_t* low, uint64_t* high) const {
  uint64_t lo = ~uint64_t{0}, hi = 0;
  for (size_t i = 0; i < phdr_count_; ++i) {
    const Elf64_Phdr& ph = phdrs_[i];
    if (ph.p_type != PT_LOAD) continue;
    if (ph.p_vaddr < lo) lo = ph.p_vaddr;
    if (ph.p_vaddr + ph.p_memsz > hi) hi = ph.p_vaddr + ph.p_memsz;
  }
  if (hi <= lo) return false;
  *low = lo;
  *high = hi;
  return true;
}

bool ElfImage::in_relro(uint64_t address) const {
  for (size_t i = 0; i < phdr_count_; ++i) {
    const Elf64_Phdr& ph = phdrs_[i];
    if (ph.p_type == PT_GNU_RELRO && address >= ph.p_vaddr && address - ph.p_vaddr < ph.p_memsz) return true;
  }
  return false;
}

bool ElfImage::dynamic_tables(DynamicTables* out) const {
  *out = DynamicTables{};
  out->machine = machine_;
  const Elf64_Dyn* dynamic = nullptr;
  size_t entries = 0;
  for (size_t i = 0; i < phdr_count_; ++i) {
    const Elf64_Phdr& ph = phdrs_[i];
    if (ph.p_type == PT_DYNAMIC) dynamic = table_at<Elf64_Dyn>(*this, ph.p_vaddr, ph.p_filesz, &entries);
  }
  if (dynamic == nullptr) return false;
  uint64_t symtab = 0, strtab = 0, strsz = 0, jmprel = 0, pltrelsz = 0, rela = 0, relasz = 0, hash = 0, gnu_hash = 0,
           versym = 0;
  bool plt_is_rela = true, rela_entry_ok = true;
  for (size_t i = 0; i < entries && dynamic[i].d_tag != DT_NULL; ++i) {
    const Elf64_Dyn& d = dynamic[i];
    // ld.so relocates most address entries of a loaded object in place (the
    // vDSO's it does not): back to link-time addresses, as in the file.
    uint64_t address = d.d_un.d_ptr;
    if (loaded_ && address >= base_) address -= base_;
    switch (d.d_tag) {
      case DT_SYMTAB:
        symtab = address;
        break;
      case DT_STRTAB:
        strtab = address;
        break;
      case DT_STRSZ:
        strsz = d.d_un.d_val;
        break;
      case DT_JMPREL:
        jmprel = address;
        break;
      case DT_PLTRELSZ:
        pltrelsz = d.d_un.d_val;
        break;
      case DT_PLTREL:
        plt_is_rela = d.d_un.d_val == DT_RELA;
        break;
      case DT_RELA:
        rela = address;
        break;
      case DT_RELASZ:
        relasz = d.d_un.d_val;
        break;
      case DT_RELAENT:
        rela_entry_ok = d.d_un.d_val == sizeof(Elf64_Rela);
        break;
      case DT_HASH:
        hash = address;
        break;
      case DT_GNU_HASH:
        gnu_hash = address;
        break;
      case DT_VERSYM:
        versym = address;
        break;
      default:
        break;
    }
  }
  if (symtab == 0 || strtab == 0) return false;

  // Symbols: as many as the hash table says, never more than the segment holds.
  size_t hashed = 0;
  if (const auto* h = hash != 0 ? aligned<uint32_t>(at_address(hash, 8)) : nullptr) {
    hashed = h[1];  // nchain: one chain entry per symbol
  } else if (gnu_hash != 0) {
    hashed = gnu_hash_symbol_count(*this, gnu_hash);
  }
  out->symbols =
      table_at<Elf64_Sym>(*this, symtab, hashed != 0 ? hashed * sizeof(Elf64_Sym) : ~uint64_t{0}, &out->symbol_count);
  if (hashed == 0 && !loaded_) {
    // No hash table to count them: the file's .dynsym section says.
    for (size_t i = 0; i < section_count_; ++i) {
      if (sections_[i].sh_type == SHT_DYNSYM && sections_[i].sh_addr == symtab) {
        size_t n = static_cast<size_t>(sections_[i].sh_size / sizeof(Elf64_Sym));
        if (n < out->symbol_count) out->symbol_count = n;
      }
    }
  }
  if (out->symbols == nullptr) return false;
  const uint64_t string_bytes = bytes_at_address(strtab);
  out->strings_size = static_cast<size_t>(strsz < string_bytes ? strsz : string_bytes);
  out->strings = static_cast<const char*>(at_address(strtab, out->strings_size));
  if (out->strings == nullptr) return false;
  if (versym != 0) {
    out->versions = aligned<uint16_t>(at_address(versym, out->symbol_count * sizeof(uint16_t)));
  }
  if (jmprel != 0 && plt_is_rela) out->plt_relocations = table_at<Elf64_Rela>(*this, jmprel, pltrelsz, &out->plt_count);
  if (rela != 0 && rela_entry_ok) out->relocations = table_at<Elf64_Rela>(*this, rela, relasz, &out->count);
  return true;
}

const void* ElfImage::note_bytes(const Elf64_Phdr& ph) const {
  // A loaded object's notes are read where they were mapped (inside a
  // PT_LOAD); a file's from their file offset.
  return loaded_ ? at_address(ph.p_vaddr, ph.p_filesz) : at_offset(ph.p_offset, ph.p_filesz);
}

BuildId ElfImage::build_id() const {
  BuildId id;
  bool any_note_segment = false;
  for (size_t i = 0; i < phdr_count_; ++i) {
    const Elf64_Phdr& ph = phdrs_[i];
    if (ph.p_type != PT_NOTE) continue;
    any_note_segment = true;
    const void* notes = note_bytes(ph);
    if (notes != nullptr && find_build_id(static_cast<const unsigned char*>(notes), ph.p_filesz, ph.p_align, &id)) {
      return id;
    }
  }
  if (any_note_segment) return id;
  // Objects without program headers for their notes (separate debug files).
  for (size_t i = 0; i < section_count_; ++i) {
    const Elf64_Shdr& sh = sections_[i];
    if (sh.sh_type != SHT_NOTE) continue;
    const void* notes = section_data(sh);
    if (notes != nullptr && find_build_id(static_cast<const unsigned char*>(notes), sh.sh_size, sh.sh_addralign, &id)) {
      return id;
    }
  }
  return id;
}

bool ElfImage::has_section(uint32_t section_type) const {
  for (size_t i = 0; i < section_count_; ++i) {
    if (sections_[i].sh_type == section_type) return true;
  }
  return false;
}

int ElfImage::for_each_section_symbol(uint32_t section_type, SymbolVisitor visit, void* context) const {
  for (size_t i = 0; i < section_count_; ++i) {
    const Elf64_Shdr& sh = sections_[i];
    if (sh.sh_type != section_type || sh.sh_link >= section_count_) continue;
    const auto* symbols = aligned<Elf64_Sym>(section_data(sh));
    const Elf64_Shdr& strtab = sections_[sh.sh_link];
    const auto* strings = static_cast<const char*>(section_data(strtab));
    if (symbols == nullptr || strings == nullptr) continue;
    DynamicTables names;  // only for name_of: the same bounds checks
    names.strings = strings;
    names.strings_size = static_cast<size_t>(strtab.sh_size);
    const size_t count = static_cast<size_t>(sh.sh_size / sizeof(Elf64_Sym));
    for (size_t k = 1; k < count; ++k) {
      const char* name = names.name_of(symbols[k]);
      if (name == nullptr || *name == '\0') continue;
      if (int stop = visit(SymbolEntry{&symbols[k], name, k, false}, context); stop != 0) return stop;
    }
    return 0;
  }
  return 0;
}

int for_each_dynamic_symbol(const DynamicTables& tables, SymbolVisitor visit, void* context) {
  for (size_t k = 1; k < tables.symbol_count; ++k) {
    const Elf64_Sym& sym = tables.symbols[k];
    const char* name = tables.name_of(sym);
    if (name == nullptr || *name == '\0') continue;
    // Bit 15 of the version index marks a hidden (non-default) version.
    const bool hidden = tables.versions != nullptr && (tables.versions[k] & 0x8000) != 0;
    if (int stop = visit(SymbolEntry{&sym, name, k, hidden}, context); stop != 0) return stop;
  }
  return 0;
}

const Elf64_Sym* find_dynamic_definition(const DynamicTables& tables, const char* name) {
  struct Search {
    const char* name;
    const Elf64_Sym* first_defined;
    const Elf64_Sym* default_version;
  } search{name, nullptr, nullptr};
  for_each_dynamic_symbol(
      tables,
      [](const SymbolEntry& s, void* data) -> int {
        auto* search = static_cast<Search*>(data);
        if (s.sym->st_shndx == SHN_UNDEF || std::strcmp(s.name, search->name) != 0) return 0;
        const unsigned bind = ELF64_ST_BIND(s.sym->st_info);
        if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) return 0;
        if (search->first_defined == nullptr) search->first_defined = s.sym;
        if (s.hidden_version) return 0;
        search->default_version = s.sym;
        return 1;
      },
      &search);
  return search.default_version != nullptr ? search.default_version : search.first_defined;
}

namespace {

int visit_relocations(const DynamicTables& tables, const Elf64_Rela* relocations, size_t count, ImportVisitor visit,
                      void* context) {
  for (size_t i = 0; i < count; ++i) {
    const Elf64_Rela& r = relocations[i];
    bool plt = false;
    if (!is_import_type(tables.machine, static_cast<uint32_t>(ELF64_R_TYPE(r.r_info)), &plt)) continue;
    const uint64_t index = ELF64_R_SYM(r.r_info);
    if (index == 0 || index >= tables.symbol_count) continue;
    const Elf64_Sym& sym = tables.symbols[index];
    // Only imports: a slot bound to the object's own definition is not one.
    if (sym.st_shndx != SHN_UNDEF) continue;
    const char* name = tables.name_of(sym);
    if (name == nullptr || *name == '\0') continue;
    if (int stop = visit(ImportEntry{r.r_offset, name, plt}, context); stop != 0) return stop;
  }
  return 0;
}

}  // namespace

int for_each_import(const DynamicTables& tables, ImportVisitor visit, void* context) {
  int stop = visit_relocations(tables, tables.plt_relocations, tables.plt_count, visit, context);
  if (stop == 0) stop = visit_relocations(tables, tables.relocations, tables.count, visit, context);
  return stop;
}

}  // namespace syncscope::elf
