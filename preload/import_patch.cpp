#include "preload/import_patch.h"

namespace syncscope::preload {

int patch_imports(const ImportPatch* patches, int count) {
  static auto* patcher = new ImportPatcher();  // never destroyed: a hook may run during exit
  return patcher->patch(patches, count);
}

}  // namespace syncscope::preload
