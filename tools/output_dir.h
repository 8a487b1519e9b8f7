// The trace directory of `run` and `attach`: a timestamped default, a
// refusal to mix a new recording into old traces unless --force, and a
// check, before anything runs, that traces can be written there at all.
#pragma once

#include <string>

namespace syncscope {

// "<prefix>-YYYYmmdd-HHMMSS" in the working directory.
std::string default_output_dir(const std::string& prefix);

enum class OutputDirState {
  kReady,
  kHoldsTraces,  // old traces and no --force: a usage error
  kUnusable,     // cannot be created or written: nothing could be recorded
};

// Creates `dir` and proves it writable (a probe file is written and
// removed); with `force`, removes the traces already in it, else refuses
// when it holds any. Anything but kReady is logged as an error; for
// kUnusable *reason (if given) says why.
OutputDirState prepare_output_dir(const std::string& dir, bool force, std::string* reason = nullptr);

}  // namespace syncscope
