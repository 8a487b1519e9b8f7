// The import slots of the objects loaded in this process: the GOT entries
// that JUMP_SLOT (.rela.plt) and GLOB_DAT (.rela.dyn) relocations fill with
// the address of a function another object defines. Writing one redirects
// that object's calls (and its address-of) for that symbol. Used by the one
// import patcher (import_patcher.h). The ELF structures are read by the ELF
// reader (elf/elf_image.h) from each object's loaded image: no file I/O.
#pragma once

#include <link.h>

#include <cstdint>

#include "elf/elf_image.h"

namespace syncscope::preload {

struct ImportSlot {
  void** address;      // the GOT entry
  const char* symbol;  // imported (undefined) symbol it is bound to
  const char* object;  // path of the importing object ("" for the executable)
  uintptr_t object_base;
  bool relro;  // inside PT_GNU_RELRO: read-only after relocation
};

// Calls visit(slot, context) for every import slot of every loaded object
// except this library; with `wants`, only of the objects it accepts (asked
// once per object). A nonzero return from visit stops the walk.
using ImportVisitor = int (*)(const ImportSlot& slot, void* context);
using ObjectFilter = bool (*)(uintptr_t base, const char* path, void* context);
void for_each_import_slot(ImportVisitor visit, void* context, ObjectFilter wants = nullptr);

// How many objects have ever been loaded (dlpi_adds: never decreases), to
// tell cheaply whether anything was loaded since a previous walk.
unsigned long long objects_ever_loaded();

// A loaded object's image, for the ELF reader.
inline elf::ElfImage loaded_image(const dl_phdr_info* info) {
  return elf::ElfImage::loaded(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum);
}

// Writes one slot atomically, making a RELRO page writable for the moment
// and read-only again after. False if the page's protection cannot change.
bool write_import_slot(const ImportSlot& slot, void* value);
bool write_import_slot(void** address, bool relro, void* value);

// Load base of this library.
uintptr_t own_load_base();

}  // namespace syncscope::preload
