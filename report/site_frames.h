// The frames of a finding's call site, symbolised, with the "user frame":
// the innermost frame that is the program's own code rather than the CUDA
// runtime, the recorder, the C library or a framework (PyTorch).
#pragma once

#include <string>
#include <vector>

#include "detectors/finding.h"
#include "report/symbolizer.h"
#include "trace/reader.h"

namespace syncscope {

struct PythonSiteFrame {
  std::string file;
  uint32_t line = 0;
  std::string function;
};

struct UserFrame {
  std::string file;
  uint32_t line = 0;  // 0: unknown (native frames)
  std::string function;
  std::string source;  // the line's text when the file is readable
  bool python = false;
};

struct SiteFrames {
  std::vector<PythonSiteFrame> python;  // innermost first
  std::vector<Frame> native;            // innermost first, recorder frames removed
  int user_native_index = -1;           // index into native of the first own-code native frame
  bool has_user = false;
  UserFrame user;  // the innermost Python frame outside libraries, else the native one

  // A finding made on a thread without Python (autograd's backward threads)
  // while a Python thread waited for it (Finding::waiter_stack_id): the
  // waiter's Python frames, and whether its line is the user frame.
  uint32_t waiter_tid = 0;                     // 0: no waiter recorded
  std::vector<PythonSiteFrame> waiter_python;  // innermost first
  bool user_from_waiter = false;
};

SiteFrames site_frames(const ProcessTrace& trace, uint32_t stack_id, Symbolizer& symbolizer);
// A finding's site: its own stack, and when that has no Python frames the
// waiting thread's Python line stands in as the user frame.
SiteFrames finding_site_frames(const ProcessTrace& trace, const Finding& finding, Symbolizer& symbolizer);
// True for modules that are never "the user's code".
bool is_library_module(const std::string& module);
// True for Python files of PyTorch, the standard library or installed packages.
bool is_library_python_file(const std::string& file);
// Text of a source line ("" when unreadable), whitespace-trimmed.
std::string source_line(const std::string& file, uint32_t line);

}  // namespace syncscope
