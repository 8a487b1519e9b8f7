// LD_PRELOAD's syntax, for telling whether this library was preloaded
// (preload/core/load_mode.h): entries separated by spaces or colons, each a path
// or a bare file name.
#pragma once

namespace syncscope::preload {

// True when an entry of `list` has `basename` as its last path component.
bool preload_list_names(const char* list, const char* basename);

}  // namespace syncscope::preload
