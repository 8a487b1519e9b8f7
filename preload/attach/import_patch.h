// Redirecting imported functions in the objects loaded so far, for a
// recorder started with the preload: their GOT slots (JUMP_SLOT and GLOB_DAT
// relocations) for each symbol are pointed at its replacement. Needed where
// LD_PRELOAD cannot interpose: a symbol the main executable defines itself
// (a statically linked python3 defines the whole C API) wins over any
// preloaded definition. The patching is the import patcher's
// (import_patcher.h), one for the whole process; nothing is restored.
#pragma once

#include "preload/attach/import_patcher.h"

namespace syncscope::preload {

// Patches every listed symbol in the objects loaded since the last call
// (cheap when none were), in one scan; a symbol listed for the first time
// (or with a new replacement) is patched in every loaded object, also those
// scanned before. Skips this library and the object that defines the symbol.
// Returns the number of slots written; 0 without waiting when another thread
// is patching (called from hooks, again and again: a later call catches up).
int patch_imports(const ImportPatch* patches, int count);

}  // namespace syncscope::preload
