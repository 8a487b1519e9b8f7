#include "preload/attach/import_patch.h"

namespace syncscope::preload {

int patch_imports(const ImportPatch* patches, int count) {
  static auto* patcher = new ImportPatcher();  // never destroyed: a hook may run during exit
  // Called from CUDA hooks: never waits for another thread's scan (that
  // thread patches the same symbols; a later call catches up on new objects).
  return patcher->try_patch(patches, count);
}

}  // namespace syncscope::preload
