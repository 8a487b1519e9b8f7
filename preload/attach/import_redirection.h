// Attach's way in (syncscope attach into a process that was not started
// with the preload): this library, loaded late, cannot outrank libcudart's
// and libcuda's definitions, so every import slot that binds one of its
// hooked symbols (the runtime and driver functions, the driver entry-point
// lookups, dlsym, PyEval_RestoreThread) in the already-loaded objects is
// pointed at the hook instead, remembering what it held. Detaching puts
// every slot back exactly as it was. The patching is the import patcher's
// (import_patcher.h); this file chooses the targets: all of our exports.
#pragma once

#include <string>
#include <vector>

#include "preload/attach/import_patcher.h"

namespace syncscope::preload {

struct RedirectionSummary {
  std::vector<std::string> objects;  // "libtorch_cuda.so (57)", one per object with slots, most first
};

// Redirects the slots of objects not scanned yet (new ones since the last
// call; all on the first). Returns how many slots this call wrote.
int redirect_imports();

// Puts every redirected slot back; forgets them.
RestoreResult restore_imports();

RedirectionSummary redirection_summary();

}  // namespace syncscope::preload
