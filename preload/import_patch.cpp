#include "preload/import_patch.h"

#include <cstring>

#include "preload/import_slots.h"

namespace syncscope::preload {
namespace {

struct PatchContext {
  const char* symbol;
  void* replacement;
  int written;
};

int patch_slot(const ImportSlot& slot, void* data) {
  auto* context = static_cast<PatchContext*>(data);
  if (std::strcmp(slot.symbol, context->symbol) != 0 || *slot.address == context->replacement) return 0;
  if (write_import_slot(slot, context->replacement)) ++context->written;
  return 0;
}

}  // namespace

int patch_imports(const char* symbol, void* replacement) {
  static unsigned long long last_adds = ~0ull;
  // Only when objects were added since the last scan.
  unsigned long long adds = objects_ever_loaded();
  if (adds == last_adds) return 0;
  last_adds = adds;
  PatchContext context{symbol, replacement, 0};
  for_each_import_slot(patch_slot, &context);
  return context.written;
}

}  // namespace syncscope::preload
