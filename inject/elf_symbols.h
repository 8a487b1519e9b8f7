// Just enough ELF reading for the injector: the address of a dynamic symbol
// in a shared object (relative to its load base), and a file's machine type.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace syncscope::inject {

// st_value of the defined dynamic symbol `name` in the ELF64 file at `path`,
// read from .dynsym/.dynstr (found through the section headers). With symbol
// versioning the default version (name@@VER) is preferred over hidden ones
// (name@VER); otherwise the first definition wins. GNU indirect functions
// (IFUNC) are refused: their value is a resolver, not something to call.
// NotFound when the file does not define the symbol.
absl::StatusOr<uint64_t> elf_dynamic_symbol(const std::string& path, const std::string& name);

// e_machine of an ELF file (EM_X86_64, EM_AARCH64, ...); ELF32 or ELF64.
absl::StatusOr<uint16_t> elf_machine(const std::string& path);

}  // namespace syncscope::inject
