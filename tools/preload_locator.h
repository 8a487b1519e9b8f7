// Finding libsyncscope.so for `syncscope run`: $SYNCSCOPE_PRELOAD, else the
// build/install layout next to the executable (bin/../lib), else beside it.
#pragma once

#include <string>
#include <vector>

namespace syncscope {

// Candidate paths in order of preference (pure: unit-tested).
std::vector<std::string> preload_candidates(const std::string& env_override, const std::string& executable_path);
// The first candidate that exists, made absolute; "" if none (*tried lists them).
std::string locate_preload(std::vector<std::string>* tried);
// The folder of syncscope's sitecustomize.py beside a preload
// (<lib>/syncscope-python), or "" when it is not there.
std::string python_hooks_dir_for(const std::string& preload_path);

}  // namespace syncscope
