// Sanitizer runtimes and LD_PRELOAD's order. ASan (and TSan, HWASan) insist
// on their runtime being the first library of the process: a program built
// with -fsanitize=address that links libasan dynamically stops with "ASan
// runtime does not come first in initial library list" when LD_PRELOAD puts
// anything before it, as `syncscope run` would put libsyncscope.so. So the
// runtimes a program (or the preload itself, in a sanitizer build of
// syncscope) needs go first, the preload right after.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

// True for a sanitizer runtime that must come first (by soname or path):
// libasan.so*, libtsan.so*, libhwasan.so*, libclang_rt.{asan,tsan,hwasan}*.so.
bool is_first_sanitizer_runtime(std::string_view name);

// The DT_NEEDED sonames of an ELF shared object or executable; empty when
// it is not a readable 64-bit little-endian ELF file (a script, say).
std::vector<std::string> needed_libraries(const std::string& path);

// The sanitizer runtimes (is_first_sanitizer_runtime) among needed_libraries.
std::vector<std::string> sanitizer_runtimes_needed(const std::string& path);

// The file execvp would run for `command` (a name searched in PATH, or a
// path); "" when none is found.
std::string resolve_command(const std::string& command, const std::string& path_variable);

}  // namespace syncscope
