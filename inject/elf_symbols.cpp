#include "inject/elf_symbols.h"

#include <elf.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "elf/elf_file.h"

namespace syncscope::inject {
namespace {

absl::Status open_error(const elf::ElfFile& file) {
  if (file.status() == elf::ElfFile::Status::kCannotOpen) return absl::NotFoundError(file.error());
  return absl::DataLossError(file.error());
}

}  // namespace

absl::StatusOr<uint64_t> elf_dynamic_symbol(const std::string& path, const std::string& name) {
  elf::ElfFile file;
  if (file.open(path) != elf::ElfFile::Status::kOk) return open_error(file);
  elf::DynamicTables tables;
  if (!file.image().dynamic_tables(&tables)) {
    return absl::DataLossError(absl::StrCat(path, ": not a usable ELF file (no dynamic symbol table)"));
  }
  const Elf64_Sym* sym = elf::find_dynamic_definition(tables, name.c_str());
  if (sym == nullptr) return absl::NotFoundError(absl::StrCat(path, " does not define ", name));
  if (ELF64_ST_TYPE(sym->st_info) == STT_GNU_IFUNC) {
    return absl::UnimplementedError(absl::StrCat(name, " in ", path, " is an indirect function (IFUNC)"));
  }
  return static_cast<uint64_t>(sym->st_value);
}

absl::StatusOr<uint16_t> elf_machine(const std::string& path) {
  elf::ElfFile file;
  file.open(path);
  // Any ELF file has a machine, even one this reader cannot parse further.
  if (file.machine() != 0 || file.status() == elf::ElfFile::Status::kOk) return file.machine();
  return open_error(file);
}

}  // namespace syncscope::inject
