// The injector's symbol lookup: the address of a dynamic symbol in a shared
// object (relative to its load base), and a file's machine type, with the
// errors the injector explains. A thin layer over the ELF reader
// (elf_file.h), which does the parsing.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace syncscope::inject {

// st_value of the defined dynamic symbol `name` in the ELF64 file at `path`,
// read from its dynamic symbol table. With symbol versioning the default
// version (name@@VER) is preferred over hidden ones (name@VER); otherwise
// the first definition wins. GNU indirect functions (IFUNC) are refused:
// their value is a resolver, not something to call.
// NotFound when the file cannot be opened or does not define the symbol;
// DataLoss when it is not a usable ELF64 object.
absl::StatusOr<uint64_t> elf_dynamic_symbol(const std::string& path, const std::string& name);

// e_machine of an ELF file (EM_X86_64, EM_AARCH64, ...); ELF32 or ELF64.
absl::StatusOr<uint16_t> elf_machine(const std::string& path);

}  // namespace syncscope::inject
