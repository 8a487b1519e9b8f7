// Which shared objects the process has loaded, by name: what an attached
// recorder cannot see depends on it (attach/session.cpp), and CUPTI is looked for
// beside the loaded CUDA runtime (gpu_timeline/cupti_locate.cpp).
#pragma once

#include <string>

namespace syncscope::preload {

// The path of the first loaded object whose name contains `fragment`, or ""
// when none does.
std::string loaded_object_path(const char* fragment);

}  // namespace syncscope::preload
