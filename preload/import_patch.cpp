#include "preload/import_patch.h"

#include <cstring>

#include "preload/import_slots.h"

namespace syncscope::preload {
namespace {

struct PatchContext {
  const ImportPatch* patches;
  int count;
  int written;
};

int patch_slot(const ImportSlot& slot, void* data) {
  auto* context = static_cast<PatchContext*>(data);
  for (int i = 0; i < context->count; ++i) {
    const ImportPatch& patch = context->patches[i];
    if (std::strcmp(slot.symbol, patch.symbol) != 0) continue;
    if (*slot.address != patch.replacement && write_import_slot(slot, patch.replacement)) ++context->written;
    break;
  }
  return 0;
}

}  // namespace

int patch_imports(const ImportPatch* patches, int count) {
  static unsigned long long last_adds = ~0ull;
  // Only when objects were added since the last scan.
  unsigned long long adds = objects_ever_loaded();
  if (adds == last_adds) return 0;
  last_adds = adds;
  PatchContext context{patches, count, 0};
  for_each_import_slot(patch_slot, &context);
  return context.written;
}

}  // namespace syncscope::preload
