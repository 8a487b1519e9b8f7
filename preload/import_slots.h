// The import slots of the objects loaded in this process: the GOT entries
// that JUMP_SLOT (.rela.plt) and GLOB_DAT (.rela.dyn) relocations fill with
// the address of a function another object defines. Writing one redirects
// that object's calls (and its address-of) for that symbol. Shared by the
// PyEval_RestoreThread patch (import_patch.h) and attach's redirection of
// every hook (import_redirection.h).
#pragma once

#include <link.h>

#include <cstdint>

namespace syncscope::preload {

struct ImportSlot {
  void** address;       // the GOT entry
  const char* symbol;   // imported (undefined) symbol it is bound to
  const char* object;   // path of the importing object ("" for the executable)
  uintptr_t object_base;
  bool relro;           // inside PT_GNU_RELRO: read-only after relocation
};

// Calls visit(slot, context) for every import slot of every loaded object
// except this library. A nonzero return from visit stops the walk.
using ImportVisitor = int (*)(const ImportSlot& slot, void* context);
void for_each_import_slot(ImportVisitor visit, void* context);

// Writes one slot atomically, making a RELRO page writable for the moment
// and read-only again after. False if the page's protection cannot change.
bool write_import_slot(const ImportSlot& slot, void* value);
bool write_import_slot(void** address, bool relro, void* value);

// Load base of this library.
uintptr_t own_load_base();

}  // namespace syncscope::preload
