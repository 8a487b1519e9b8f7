// Redirecting one imported function in the objects already loaded: their
// GOT slots (JUMP_SLOT and GLOB_DAT relocations) for `symbol` are pointed at
// `replacement`. Needed where LD_PRELOAD cannot interpose: a symbol the main
// executable defines itself (a statically linked python3 defines the whole C
// API) wins over any preloaded definition.
#pragma once

namespace syncscope::preload {

struct ImportPatch {
  const char* symbol;
  void* replacement;
};

// Patches every listed symbol in the objects loaded since the last call
// (cheap when none were), in one scan. Skips this library and the object
// that defines the symbol. Returns the number of slots written.
int patch_imports(const ImportPatch* patches, int count);

}  // namespace syncscope::preload
