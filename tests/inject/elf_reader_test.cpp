// The ELF reader (elf/elf_image.h) on a shared object with known
// contents (elf_fixture.c): its build-id, symbols and import relocations,
// read from the file and from the copy the loader mapped into this process,
// which must agree; and damaged files, which must never be read past their end.
#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <link.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "elf/elf_file.h"
#include "elf/elf_image.h"

namespace syncscope::elf {
namespace {

// The build-id CMakeLists.txt gives libelf_fixture.so.
const char kFixtureBuildId[] = "5ca1ab1e0123456789abcdeffedcba9876543210";

std::string hex(const BuildId& id) {
  char out[2 * BuildId::kMaxSize + 1];
  return build_id_hex(id, out, sizeof(out));
}

std::map<std::string, bool> imports_of(const DynamicTables& tables) {
  std::map<std::string, bool> imports;  // symbol -> through the PLT
  for_each_import(
      tables,
      [](const ImportEntry& e, void* data) -> int {
        (*static_cast<std::map<std::string, bool>*>(data))[e.symbol] = e.plt;
        return 0;
      },
      &imports);
  return imports;
}

// The fixture as the loader mapped it into this process.
struct Loaded {
  ElfImage image;
  bool found = false;
};
Loaded loaded_fixture() {
  void* handle = dlopen(ELF_FIXTURE_LIB, RTLD_NOW);
  EXPECT_NE(handle, nullptr) << dlerror();
  Loaded out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "libelf_fixture.so") == nullptr) return 0;
        auto* out = static_cast<Loaded*>(data);
        out->image = ElfImage::loaded(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum);
        out->found = true;
        return 1;
      },
      &out);
  EXPECT_TRUE(out.found);
  return out;
}

TEST(ElfFile, BuildIdOfTheFixture) {
  ElfFile file;
  ASSERT_EQ(file.open(ELF_FIXTURE_LIB), ElfFile::Status::kOk) << file.error();
  EXPECT_EQ(hex(file.image().build_id()), kFixtureBuildId);
#if defined(__x86_64__)
  EXPECT_EQ(file.machine(), EM_X86_64);
#endif
}

TEST(ElfFile, DynamicSymbolsOfTheFixtureMatchTheLoader) {
  ElfFile file;
  ASSERT_EQ(file.open(ELF_FIXTURE_LIB), ElfFile::Status::kOk) << file.error();
  DynamicTables tables;
  ASSERT_TRUE(file.image().dynamic_tables(&tables));
  Loaded loaded = loaded_fixture();
  void* handle = dlopen(ELF_FIXTURE_LIB, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr);
  for (const char* name : {"fixture_call_a", "fixture_call_b", "fixture_data"}) {
    const Elf64_Sym* sym = find_dynamic_definition(tables, name);
    ASSERT_NE(sym, nullptr) << name;
    EXPECT_EQ(loaded.image.base() + sym->st_value, reinterpret_cast<uintptr_t>(dlsym(handle, name))) << name;
  }
  // Imported, not defined here.
  EXPECT_EQ(find_dynamic_definition(tables, "fixture_import_a"), nullptr);
  EXPECT_EQ(find_dynamic_definition(tables, "no_such_symbol"), nullptr);
}

TEST(ElfFile, FullSymbolTableNamesFunctionsOfTheFixture) {
  ElfFile file;
  ASSERT_EQ(file.open(ELF_FIXTURE_LIB), ElfFile::Status::kOk) << file.error();
  std::map<std::string, uint64_t> functions;
  const uint32_t table = file.image().has_section(SHT_SYMTAB) ? SHT_SYMTAB : SHT_DYNSYM;
  file.image().for_each_section_symbol(
      table,
      [](const SymbolEntry& s, void* data) -> int {
        if (ELF64_ST_TYPE(s.sym->st_info) == STT_FUNC && s.sym->st_shndx != SHN_UNDEF) {
          (*static_cast<std::map<std::string, uint64_t>*>(data))[s.name] = s.sym->st_value;
        }
        return 0;
      },
      &functions);
  EXPECT_TRUE(functions.count("fixture_call_a"));
  EXPECT_TRUE(functions.count("fixture_pointer_b"));
  EXPECT_FALSE(functions.count("fixture_import_a"));  // undefined here
  DynamicTables tables;
  ASSERT_TRUE(file.image().dynamic_tables(&tables));
  EXPECT_EQ(functions["fixture_call_a"], find_dynamic_definition(tables, "fixture_call_a")->st_value);
}

TEST(ElfFile, SectionNamesAndType) {
  ElfFile file;
  ASSERT_EQ(file.open(ELF_FIXTURE_LIB), ElfFile::Status::kOk) << file.error();
  const ElfImage& image = file.image();
  EXPECT_EQ(image.type(), ET_DYN);
  std::map<std::string, uint32_t> types;
  for (size_t i = 0; i < image.section_count(); ++i) {
    types[image.section_name(image.sections()[i])] = image.sections()[i].sh_type;
  }
  EXPECT_EQ(types[".dynsym"], uint32_t{SHT_DYNSYM});
  EXPECT_EQ(types[".note.gnu.build-id"], uint32_t{SHT_NOTE});
  EXPECT_TRUE(types.count(".got"));
}

TEST(ElfFile, ImportRelocationsOfTheFixture) {
  ElfFile file;
  ASSERT_EQ(file.open(ELF_FIXTURE_LIB), ElfFile::Status::kOk) << file.error();
  DynamicTables tables;
  ASSERT_TRUE(file.image().dynamic_tables(&tables));
  std::map<std::string, bool> imports = imports_of(tables);
  ASSERT_TRUE(imports.count("fixture_import_a"));
  ASSERT_TRUE(imports.count("fixture_import_b"));
  EXPECT_TRUE(imports["fixture_import_a"]);   // called: JUMP_SLOT
  EXPECT_FALSE(imports["fixture_import_b"]);  // address taken: GLOB_DAT
  // Its own functions are definitions, never imports, even when called
  // through its own PLT (interposable).
  EXPECT_FALSE(imports.count("fixture_pointer_b"));
  EXPECT_FALSE(imports.count("fixture_call_a"));
}

TEST(ElfImage, LoadedObjectAgreesWithItsFile) {
  ElfFile file;
  ASSERT_EQ(file.open(ELF_FIXTURE_LIB), ElfFile::Status::kOk) << file.error();
  Loaded loaded = loaded_fixture();
  ASSERT_TRUE(loaded.found);
  EXPECT_EQ(hex(loaded.image.build_id()), kFixtureBuildId);
  DynamicTables in_memory, on_disk;
  ASSERT_TRUE(loaded.image.dynamic_tables(&in_memory));
  ASSERT_TRUE(file.image().dynamic_tables(&on_disk));
  EXPECT_EQ(in_memory.symbol_count, on_disk.symbol_count);
  EXPECT_EQ(imports_of(in_memory), imports_of(on_disk));
  // The GOT entry of the called import holds what the loader resolved (-z now).
  struct Find {
    const char* name;
    uint64_t slot;
  } find{"fixture_import_a", 0};
  for_each_import(
      in_memory,
      [](const ImportEntry& e, void* data) -> int {
        auto* f = static_cast<Find*>(data);
        if (std::strcmp(e.symbol, f->name) != 0) return 0;
        f->slot = e.slot;
        return 1;
      },
      &find);
  ASSERT_NE(find.slot, 0u);
  void* const* got = reinterpret_cast<void* const*>(loaded.image.base() + find.slot);
  // Loaded RTLD_LOCAL: the definition is found through the fixture's handle.
  void* handle = dlopen(ELF_FIXTURE_LIB, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr);
  EXPECT_EQ(*got, dlsym(handle, "fixture_import_a"));
  EXPECT_TRUE(loaded.image.in_relro(find.slot));
}

TEST(ElfImage, BuildIdOfThisProcessesLibc) {
  // Any system library: the file and its mapped copy carry the same note.
  Dl_info where{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&strlen), &where), 0);
  ElfFile file;
  ASSERT_EQ(file.open(where.dli_fname), ElfFile::Status::kOk) << file.error();
  struct Search {
    uintptr_t base;
    BuildId id;
  } search{reinterpret_cast<uintptr_t>(where.dli_fbase), {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_addr != s->base) return 0;
        s->id = ElfImage::loaded(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum).build_id();
        return 1;
      },
      &search);
  EXPECT_FALSE(search.id.empty());
  EXPECT_EQ(hex(search.id), hex(file.image().build_id()));
}

TEST(ElfFile, MissingAndNonElfFiles) {
  ElfFile file;
  EXPECT_EQ(file.open("/nonexistent/file"), ElfFile::Status::kCannotOpen);
  EXPECT_NE(file.error().find("/nonexistent/file"), std::string::npos);
  EXPECT_EQ(file.open("/proc/self"), ElfFile::Status::kCannotOpen);  // a directory
  std::string text = ::testing::TempDir() + "elf_reader_not_elf.txt";
  std::ofstream(text) << "just some text, long enough to hold an ELF header's worth of bytes....\n";
  EXPECT_EQ(file.open(text), ElfFile::Status::kNotUsable);
  EXPECT_EQ(file.machine(), 0);
}

// Every prefix of the fixture (cut at 16-byte steps) and a few corrupted
// copies: whatever the reader answers, it stays inside the bytes it has.
TEST(ElfImage, DamagedFilesNeverReadOutOfBounds) {
  std::ifstream in(ELF_FIXTURE_LIB, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  const std::string whole = s.str();
  ASSERT_GT(whole.size(), 1000u);
  auto exercise = [](const std::vector<uint64_t>& bytes, size_t size) {
    ElfImage image;
    const char* why = nullptr;
    if (!ElfImage::from_file(bytes.data(), size, &image, &why)) return;
    (void)image.build_id();
    DynamicTables tables;
    if (image.dynamic_tables(&tables)) {
      for_each_import(
          tables, [](const ImportEntry& e, void*) -> int { return e.symbol[0] == '\x7f'; }, nullptr);
      (void)find_dynamic_definition(tables, "fixture_call_a");
    }
    for (uint32_t type : {uint32_t{SHT_SYMTAB}, uint32_t{SHT_DYNSYM}}) {
      image.for_each_section_symbol(
          type, [](const SymbolEntry& e, void*) -> int { return e.name[0] == '\x7f'; }, nullptr);
    }
  };
  for (size_t size = 0; size <= whole.size(); size += 16) {
    // Exactly `size` bytes, 8-aligned, in their own allocation (a sanitizer
    // sees any read past them).
    std::vector<uint64_t> bytes((size + 7) / 8);
    if (size > 0) std::memcpy(bytes.data(), whole.data(), size);
    exercise(bytes, size);
  }
  // Headers pointing far away: section and program header offsets, counts.
  for (size_t field : {offsetof(Elf64_Ehdr, e_shoff), offsetof(Elf64_Ehdr, e_phoff), offsetof(Elf64_Ehdr, e_shnum),
                       offsetof(Elf64_Ehdr, e_phnum)}) {
    std::vector<uint64_t> bytes((whole.size() + 7) / 8);
    std::memcpy(bytes.data(), whole.data(), whole.size());
    std::memset(reinterpret_cast<char*>(bytes.data()) + field, 0x7f, 2);
    exercise(bytes, whole.size());
  }
}

}  // namespace
}  // namespace syncscope::elf
