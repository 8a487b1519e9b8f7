// syncscope's one ELF reader: what the symbolizer (report/), the injector
// (inject/) and the recorder inside the target (preload/) need to know about
// an ELF64 object, parsed once for all three.
//
// An ElfImage is a bounds-checked view of one object's bytes, in either of
// two forms (the two front ends):
//   - a file's bytes (ElfFile, elf_file.h, maps the file for the symbolizer
//     and the injector): addresses are translated to file offsets through the
//     program headers, and section headers are available;
//   - a loaded object as dl_iterate_phdr describes it (the preload): the
//     program headers and the load base, the bytes read where ld.so mapped
//     them, without any file I/O.
// Everything below (dynamic section, symbol and relocation tables, hash
// tables, notes, RELRO) is parsed by the same code for both forms; only the
// translation of an address to bytes differs.
//
// Why in inject/, as its own target (syncscope_elf): the preload links it
// into a library injected into other processes, so it depends on nothing
// but libc (no Abseil, no allocation, no exceptions, no I/O in this header's
// functions); the report and the injector link it too. inject/ is the lowest
// layer that reads other programs' objects; keeping the reader beside the
// injector (its most demanding user) and out of preload/ lets report/ use it
// without depending on the recorder's folder.
//
// ELF64 little-endian only (x86-64, aarch64: what syncscope runs on). Nothing
// here trusts a size read from the object: every table is clipped to the
// segment (or file) that holds it, so a truncated or hostile file cannot make
// a reader read out of bounds.
#pragma once

#include <elf.h>

#include <cstddef>
#include <cstdint>

namespace syncscope::elf {

// The GNU build-id (NT_GNU_BUILD_ID note): 20 bytes from GNU ld's default
// sha1, 16 for md5/uuid, any length for --build-id=0xHEX (kept up to 64).
struct BuildId {
  static constexpr uint32_t kMaxSize = 64;
  uint8_t bytes[kMaxSize] = {};
  uint32_t size = 0;  // 0: the object has none

  bool empty() const { return size == 0; }
  bool operator==(const BuildId& other) const;
  bool operator!=(const BuildId& other) const { return !(*this == other); }
};

// Writes the build-id as lowercase hex into `out` (at least 2 * size + 1
// bytes, NUL-terminated); returns `out`.
char* build_id_hex(const BuildId& id, char* out, size_t out_size);

// Pointers into one object's dynamic tables (from PT_DYNAMIC), each clipped
// to the bytes the object really holds. Counts are entries.
struct DynamicTables {
  const Elf64_Sym* symbols = nullptr;
  size_t symbol_count = 0;  // from DT_HASH / DT_GNU_HASH, else what fits in the segment
  const char* strings = nullptr;
  size_t strings_size = 0;                      // DT_STRSZ, clipped
  const uint16_t* versions = nullptr;           // DT_VERSYM: one per symbol (nullptr: unversioned)
  const Elf64_Rela* plt_relocations = nullptr;  // DT_JMPREL (RELA only)
  size_t plt_count = 0;
  const Elf64_Rela* relocations = nullptr;  // DT_RELA
  size_t count = 0;
  uint16_t machine = 0;  // EM_X86_64, EM_AARCH64: decides relocation types

  // The symbol's name, or nullptr when its offset lies outside the string
  // table or its text is not NUL-terminated inside it.
  const char* name_of(const Elf64_Sym& sym) const;
};

// One symbol of a table, for the visitors below.
struct SymbolEntry {
  const Elf64_Sym* sym;
  const char* name;     // never nullptr (unnamed entries are not visited)
  size_t index;         // in its table
  bool hidden_version;  // dynamic symbols: a non-default version (name@VER, not name@@VER)
};
// A nonzero return stops the walk and is returned by it.
using SymbolVisitor = int (*)(const SymbolEntry& symbol, void* context);

// An import slot: a JUMP_SLOT (.rela.plt) or GLOB_DAT (.rela.dyn) relocation
// of an undefined, named symbol, i.e. a GOT entry the loader fills with the
// address of a function or object another object defines.
struct ImportEntry {
  uint64_t slot;       // r_offset: link-time address of the GOT entry
  const char* symbol;  // the imported symbol's name
  bool plt;            // JUMP_SLOT (else GLOB_DAT)
};
using ImportVisitor = int (*)(const ImportEntry& import, void* context);

class ElfImage {
 public:
  ElfImage() = default;

  // The bytes of a whole file (mapped or read). False, with *why set to a
  // static string, when it is not a usable ELF64 little-endian object.
  static bool from_file(const void* data, size_t size, ElfImage* out, const char** why);
  // An object loaded in this process, as dl_iterate_phdr reports it.
  static ElfImage loaded(uintptr_t base, const Elf64_Phdr* phdrs, size_t count);

  bool is_loaded() const { return loaded_; }
  uint16_t machine() const { return machine_; }
  uint16_t type() const { return type_; }  // ET_DYN, ET_EXEC, ... (files only; 0 for a loaded object)
  uintptr_t base() const { return base_; }
  const Elf64_Phdr* program_headers() const { return phdrs_; }
  size_t program_header_count() const { return phdr_count_; }
  // Section headers: files only (none for loaded objects or when absent or damaged).
  const Elf64_Shdr* sections() const { return sections_; }
  size_t section_count() const { return section_count_; }

  // `size` bytes at link-time address `address`, or nullptr unless they all
  // lie inside one readable PT_LOAD segment (for a file: its file-backed part).
  const void* at_address(uint64_t address, uint64_t size) const;
  // How many bytes from `address` to the end of its segment (0: none).
  uint64_t bytes_at_address(uint64_t address) const;
  // A section's bytes (nullptr for SHT_NOBITS or one lying outside the file).
  const void* section_data(const Elf64_Shdr& section) const;
  // A section's name from the section name table ("" when it has none).
  const char* section_name(const Elf64_Shdr& section) const;

  // From PT_DYNAMIC; false when the object has none or no symbol table.
  bool dynamic_tables(DynamicTables* out) const;
  // From the PT_NOTE segments (for a file without any: SHT_NOTE sections).
  BuildId build_id() const;
  // Whether a link-time address lies in PT_GNU_RELRO (read-only after relocation).
  bool in_relro(uint64_t address) const;
  // Lowest and one-past-highest link-time address of the PT_LOAD segments.
  bool load_span(uint64_t* low, uint64_t* high) const;

  // Every named symbol of the file's first section of type `section_type`
  // (SHT_SYMTAB, SHT_DYNSYM) that has one; 0 when there is none.
  int for_each_section_symbol(uint32_t section_type, SymbolVisitor visit, void* context) const;
  bool has_section(uint32_t section_type) const;

 private:
  const void* at_offset(uint64_t offset, uint64_t size) const;
  const void* note_bytes(const Elf64_Phdr& ph) const;

  bool loaded_ = false;
  const unsigned char* data_ = nullptr;  // file bytes; for a loaded object the load base
  size_t size_ = 0;                      // file size (unused for a loaded object)
  uintptr_t base_ = 0;
  uint16_t machine_ = 0;
  uint16_t type_ = 0;
  const Elf64_Phdr* phdrs_ = nullptr;
  size_t phdr_count_ = 0;
  const Elf64_Shdr* sections_ = nullptr;
  size_t section_count_ = 0;
  size_t section_names_ = 0;  // index of the section name table (e_shstrndx)
};

// Every named symbol of the dynamic symbol table (defined or not).
int for_each_dynamic_symbol(const DynamicTables& tables, SymbolVisitor visit, void* context);

// The definition of `name` among the dynamic symbols (global, weak or unique
// binding): the default version (name@@VER) when there is one, else the
// first definition; nullptr when the object does not define it.
const Elf64_Sym* find_dynamic_definition(const DynamicTables& tables, const char* name);

// Every import slot, .rela.plt first, then .rela.dyn.
int for_each_import(const DynamicTables& tables, ImportVisitor visit, void* context);

}  // namespace syncscope::elf
