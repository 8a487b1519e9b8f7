#include "sites/site_frames.h"

#include <fstream>

#include "policy/input_file.h"
#include "sites/recorded_files.h"
#include "trace/source_paths.h"
#include "trace/process_info_keys.h"

namespace syncscope {

bool is_library_module(const std::string& module) {
  static const char* kPrefixes[] = {"libsyncscope", "libcudart",  "libcuda.",  "libc.so",  "libc-",
                                    "libstdc++",    "libgcc",     "ld-linux",  "libtorch", "libc10",
                                    "libpython",    "python3",    "libcublas", "libcudnn", "libnccl",
                                    "libm.so",      "libpthread", "libffi",    "_ctypes"};
  for (const char* p : kPrefixes) {
    if (module.rfind(p, 0) == 0) return true;
  }
  return module.empty();
}

bool is_library_python_file(const std::string& file) { return code_owner(file, {}).owner != CodeOwner::kUser; }

std::string source_line(const std::string& file, uint32_t line) {
  if (line == 0 || !report_reads_recorded_files()) return {};
  std::string why;
  if (!is_regular_file(file, &why)) return {};  // a FIFO would block, /dev/zero never end
  std::ifstream in(file);
  std::string text;
  for (uint32_t i = 0; i < line && std::getline(in, text); ++i) {
  }
  if (!in) return {};
  size_t first = text.find_first_not_of(" \t");
  size_t last = text.find_last_not_of(" \t\r");
  return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

namespace {

UserFrame python_line(const ProcessTrace& trace, const PythonSiteFrame& f, std::string library) {
  // Python names files as the program opened them (often relative to its
  // working directory, not ours).
  const std::string path = absolute_source_path(f.file, trace.info(info_key::kCwd));
  return UserFrame{f.file, f.line, f.function, source_line(path, f.line), true, std::move(library)};
}

// The sync frame and the user frame among `frames` (innermost first).
void pick_python_lines(const ProcessTrace& trace, const std::vector<PythonSiteFrame>& frames,
                       const CodeOwnershipOptions& code, SiteFrames* out) {
  const std::string cwd = trace.info(info_key::kCwd);
  for (size_t i = 0; i < frames.size() && !out->has_user; ++i) {
    const CodeOwnership owner = code_owner(frames[i].file, code, cwd);
    if (!out->has_sync && outside_framework(owner.owner)) {
      out->has_sync = true;
      out->sync_python_index = static_cast<int>(i);
      out->sync = python_line(trace, frames[i], owner.library);
    }
    if (owner.owner == CodeOwner::kUser) {
      out->has_user = true;
      out->user = out->sync_python_index == static_cast<int>(i) ? out->sync : python_line(trace, frames[i], "");
    }
  }
}

}  // namespace

SiteFrames site_frames(const ProcessTrace& trace, uint32_t stack_id, Symbolizer& symbolizer,
                       const CodeOwnershipOptions& code) {
  SiteFrames out;
  auto py = trace.python_stacks.find(stack_id);
  if (py != trace.python_stacks.end()) {
    for (const PythonFrame& frame : py->second) {
      auto c = trace.python_code.find(frame.code_id);
      out.python.push_back(PythonSiteFrame{c != trace.python_code.end() ? c->second.file : "?", frame.line,
                                           c != trace.python_code.end() ? c->second.function : "?"});
    }
    pick_python_lines(trace, out.python, code, &out);
  }
  auto it = trace.stacks.find(stack_id);
  if (it == trace.stacks.end()) return out;
  for (size_t i = 0; i < it->second.size(); ++i) {
    Frame f = symbolizer.symbolize(it->second[i], i == 0);
    if (f.module == "libsyncscope.so") continue;
    if (out.user_native_index < 0 && !is_library_module(f.module) && f.symbol != "??" && f.symbol != "_start") {
      out.user_native_index = static_cast<int>(out.native.size());
    }
    out.native.push_back(std::move(f));
  }
  // A Python program's own code is its Python; natively it is the interpreter.
  if (!out.has_user && out.python.empty() && out.user_native_index >= 0) {
    const Frame& f = out.native[out.user_native_index];
    out.has_user = true;
    out.user = UserFrame{f.module_path, 0, f.symbol, "", false, ""};
  }
  return out;
}

SiteFrames finding_site_frames(const ProcessTrace& trace, const Finding& finding, Symbolizer& symbolizer,
                               const CodeOwnershipOptions& code) {
  SiteFrames out = site_frames(trace, finding.stack_id, symbolizer, code);
  if (finding.waiter_stack_id == 0) return out;
  SiteFrames waiter = site_frames(trace, finding.waiter_stack_id, symbolizer, code);
  out.waiter_tid = finding.waiter_tid;
  out.waiter_python = std::move(waiter.python);
  // The event's own Python lines, when it has them, are the better answer;
  // a thread without Python can only point at the lines that waited for it.
  if (out.python.empty() && waiter.has_user && waiter.user.python) {
    out.has_user = true;
    out.user = std::move(waiter.user);
    out.user_from_waiter = true;
    out.has_sync = waiter.has_sync;
    out.sync = std::move(waiter.sync);
    out.sync_python_index = waiter.sync_python_index;
  }
  return out;
}

}  // namespace syncscope
