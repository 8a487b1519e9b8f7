// Reads a running process's import slots from outside, for tests that must
// see that attach left them exactly as it found them: the bytes of the
// executable's .got and .got.plt sections, read through /proc/PID/mem.
#pragma once

#include <string>

namespace syncscope::testing {

// "" (with a test failure) if they cannot be read.
std::string read_import_slots(int pid, const std::string& executable);

}  // namespace syncscope::testing
