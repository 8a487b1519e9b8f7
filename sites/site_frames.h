// The frames of a finding's call site, symbolised, with two lines picked
// out of them (trace/code_ownership.h says whose code a file is):
// - the "sync frame", the line that syncs: the innermost Python frame
//   outside PyTorch and the standard library, which may lie inside a
//   library the user trains with (transformers' Trainer, Lightning);
// - the "user frame", the user's line that reached it: the innermost frame
//   of the user's own files (for a native program, the innermost frame
//   outside the CUDA runtime, the recorder, the C library and PyTorch).
// In the user's own loop both are the same line.
#pragma once

#include <string>
#include <vector>

#include "detectors/finding.h"
#include "trace/code_ownership.h"
#include "sites/symbolizer.h"
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
  std::string library;  // for a sync frame inside a library: its package ("transformers"), else ""
};

struct SiteFrames {
  std::vector<PythonSiteFrame> python;  // innermost first
  std::vector<Frame> native;            // innermost first, recorder frames removed
  int user_native_index = -1;           // index into native of the first own-code native frame
  bool has_user = false;
  UserFrame user;  // the innermost Python frame outside libraries, else the native one
  // The line that syncs: the innermost Python frame outside PyTorch and the
  // standard library (of the waiter's frames when the user frame is the
  // waiter's). Absent without Python frames.
  bool has_sync = false;
  UserFrame sync;
  int sync_python_index = -1;  // into python (or waiter_python when user_from_waiter)
  // Whether the sync frame lies in a library, so that the user's line is
  // another line that reached it.
  bool sync_in_library() const { return has_sync && !sync.library.empty(); }

  // A finding made on a thread without Python (autograd's backward threads)
  // while a Python thread waited for it (Finding::waiter_stack_id): the
  // waiter's Python frames, and whether its line is the user frame.
  uint32_t waiter_tid = 0;                     // 0: no waiter recorded
  std::vector<PythonSiteFrame> waiter_python;  // innermost first
  bool user_from_waiter = false;
};

SiteFrames site_frames(const ProcessTrace& trace, uint32_t stack_id, Symbolizer& symbolizer,
                       const CodeOwnershipOptions& code = {});
// A finding's site: its own stack, and when that has no Python frames the
// waiting thread's Python lines stand in as the sync and user frames.
SiteFrames finding_site_frames(const ProcessTrace& trace, const Finding& finding, Symbolizer& symbolizer,
                               const CodeOwnershipOptions& code = {});
// True for modules that are never "the user's code".
bool is_library_module(const std::string& module);
// True for Python files of PyTorch, the standard library or installed
// packages (code_owner() without options is not kUser).
bool is_library_python_file(const std::string& file);
// Text of a source line ("" when unreadable), whitespace-trimmed.
std::string source_line(const std::string& file, uint32_t line);

}  // namespace syncscope
