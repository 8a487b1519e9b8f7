// The frames of a finding's call site, symbolised, with the "user frame":
// the innermost frame that is the program's own code rather than the CUDA
// runtime, the recorder, the C library or a framework (PyTorch).
#pragma once

#include <string>
#include <vector>

#include "report/symbolizer.h"
#include "trace/reader.h"

namespace syncscope {

struct SiteFrames {
  std::vector<Frame> native;  // innermost first, recorder frames removed
  int user_index = -1;        // index into native of the user frame, -1 if none
};

SiteFrames site_frames(const ProcessTrace& trace, uint32_t stack_id, Symbolizer& symbolizer);
// True for modules that are never "the user's code".
bool is_library_module(const std::string& module);

}  // namespace syncscope
