#include "report/frame_folding.h"

#include <cctype>
#include <cstring>
#include <set>
#include <string_view>

namespace syncscope {
namespace {

constexpr std::string_view kAnonymous = "(anonymous namespace)";
constexpr std::string_view kOperator = "operator";
constexpr const char* kEllipsis = "…";

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Length of an operator's name at s[i] ("operator<<", "operator()", "operator"
// before " new"/" bool"), 0 when none starts there: its brackets are not
// template arguments or a parameter list.
size_t operator_length(std::string_view s, size_t i) {
  if (s.compare(i, kOperator.size(), kOperator) != 0) return 0;
  if (i > 0 && identifier_char(s[i - 1])) return 0;
  size_t j = i + kOperator.size();
  if (j < s.size() && identifier_char(s[j])) return 0;  // "operators", "operator_x"
  if (s.compare(j, 2, "()") == 0 || s.compare(j, 2, "[]") == 0) return j + 2 - i;
  size_t k = j;
  while (k < s.size() && k - j < 3 && std::strchr("<>=!+-*/%&|^~,", s[k]) != nullptr) ++k;
  return k - i;
}

// Index of the bracket closing the one at s[open] ('<' or '('), npos when
// unbalanced. '>' of "->" closes nothing; operator names are skipped whole.
size_t closing(std::string_view s, size_t open) {
  const char up = s[open], down = up == '<' ? '>' : ')';
  int depth = 0;
  for (size_t k = open; k < s.size(); ++k) {
    if (size_t op = operator_length(s, k)) {
      k += op - 1;
      continue;
    }
    if (s[k] == up) {
      ++depth;
    } else if (s[k] == down && !(down == '>' && k > 0 && s[k - 1] == '-')) {
      if (--depth == 0) return k;
    }
  }
  return std::string_view::npos;
}

FrameKind classify_name(const std::string& name) {
  // The dispatcher's path from an at:: call to the kernel and back out of
  // the Python binding: none of it is code anyone edits.
  static constexpr std::string_view kDispatcher[] = {"c10::impl::",
                                                     "c10::Dispatcher::",
                                                     "c10::KernelFunction",
                                                     "c10::BoxedKernel",
                                                     "c10::OperatorHandle",
                                                     "c10::TypedOperatorHandle",
                                                     "c10::callUnboxedKernelFunction",
                                                     "c10::boxing::",
                                                     "c10::function_ref",
                                                     "at::_ops::",
                                                     "torch::autograd::VariableType::",
                                                     "torch::ADInplaceOrView::",
                                                     "torch::TraceType::",
                                                     "torch::autograd::Engine::",
                                                     "torch::autograd::python::PythonEngine::",
                                                     "torch::autograd::call_function",
                                                     "torch::autograd::Node::operator()",
                                                     "std::function<",
                                                     "std::_Function_handler",
                                                     "std::__invoke",
                                                     "std::invoke",
                                                     "pybind11::cpp_function",
                                                     "pybind11::detail::"};
  static constexpr std::string_view kStartup[] = {"start_thread",
                                                  "clone",
                                                  "clone3",
                                                  "__clone",
                                                  "__clone3",
                                                  "__libc_start_main",
                                                  "__libc_start_call_main",
                                                  "_start",
                                                  "std::execute_native_thread_routine",
                                                  "std::thread::_State_impl"};
  for (std::string_view p : kDispatcher) {
    if (starts_with(name, p)) return FrameKind::kDispatcher;
  }
  // The generated registration wrappers: at::(anonymous namespace)::wrapper_CUDA__add_Tensor.
  size_t last = name.rfind("::");
  if (starts_with(name, "at::") && last != std::string::npos && starts_with(name.substr(last + 2), "wrapper_")) {
    return FrameKind::kDispatcher;
  }
  for (std::string_view p : kStartup) {
    // Plain C names match whole; the C++ ones by prefix (their members follow).
    bool qualified = p.find("::") != std::string_view::npos;
    if (name == p || (qualified && starts_with(name, p))) {
      return FrameKind::kStartup;
    }
  }
  // CPython's call protocol, in libpython or a statically linked python3.
  static constexpr std::string_view kInterpreter[] = {
      "_PyEval_",     "PyEval_",      "PyObject_Call", "PyObject_Vectorcall",
      "_PyObject_",   "_PyFunction_", "PyVectorcall_", "_PyVectorcall_",
      "_PyCFunction", "PyCFunction_", "cfunction_",    "method_vectorcall",
      "Py_RunMain",   "Py_BytesMain", "pymain_",       "_PyRun_",
      "PyRun_",       "_Py_"};
  for (std::string_view p : kInterpreter) {
    if (starts_with(name, p)) return FrameKind::kInterpreter;
  }
  return FrameKind::kShown;
}

bool is_python_module(const std::string& module) {
  return starts_with(module, "libpython") || starts_with(module, "python3") || starts_with(module, "python2") ||
         module == "python";
}

std::string fold_label(size_t frames, const std::set<FrameKind>& kinds) {
  std::string names;
  for (FrameKind k : kinds) names += std::string(names.empty() ? "" : "/") + frame_kind_name(k);
  return std::string(kEllipsis) + " " + std::to_string(frames) + " " + names + (frames == 1 ? " frame " : " frames ") +
         kEllipsis;
}

}  // namespace

std::string elide_symbol(const std::string& symbol) {
  std::string_view s = symbol;
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (size_t op = operator_length(s, i)) {
      out.append(s.substr(i, op));
      i += op;
      continue;
    }
    const char c = s[i];
    if (c == '(' && s.compare(i, kAnonymous.size(), kAnonymous) == 0) {
      out.append(kAnonymous);
      i += kAnonymous.size();
      continue;
    }
    if (c == '<' || c == '(') {
      size_t close = closing(s, i);
      if (close == std::string_view::npos) {  // not a bracket pair after all: leave the rest as it is
        out.append(s.substr(i));
        break;
      }
      const bool empty = close == i + 1;
      out += c;
      if (!empty) out += kEllipsis;
      out += s[close];
      i = close + 1;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

std::string qualified_name(const std::string& symbol) {
  std::string e = elide_symbol(symbol);
  // The parameter list is the last top-level "(…)"/"()" that is no operator's
  // name; what follows it (" const", " [clone .cold]") goes with it.
  for (size_t at = e.size(); at-- > 0;) {
    if (e[at] != '(') continue;
    if (e.compare(at, kAnonymous.size(), kAnonymous) == 0) continue;
    if (at >= kOperator.size() && e.compare(at - kOperator.size(), kOperator.size(), kOperator) == 0 &&
        e.compare(at, 2, "()") == 0) {
      continue;  // "operator()" itself; its parameters follow it
    }
    // Inside a lambda's name ("{lambda(…)#1}") it is not the parameter list.
    size_t brace_open = e.rfind('{', at), brace_close = e.rfind('}', at);
    if (brace_open != std::string::npos && (brace_close == std::string::npos || brace_close < brace_open)) continue;
    e.resize(at);
    break;
  }
  // The return type ends at the last space outside "(anonymous namespace)".
  size_t start = 0;
  for (size_t k = 0; k < e.size(); ++k) {
    if (e.compare(k, kAnonymous.size(), kAnonymous) == 0) {
      k += kAnonymous.size() - 1;
      continue;
    }
    if (e[k] == ' ' && !(k >= kOperator.size() && e.compare(k - kOperator.size(), kOperator.size(), kOperator) == 0)) {
      start = k + 1;
    }
  }
  std::string name = e.substr(start);
  const std::string elided = std::string("<") + kEllipsis + ">";
  for (size_t at; (at = name.find(elided)) != std::string::npos;) name.erase(at, elided.size());
  return name;
}

FrameKind frame_kind(const Frame& frame) {
  // Everything inside the interpreter is its machinery, named or not.
  if (is_python_module(frame.module)) return FrameKind::kInterpreter;
  if (frame.symbol.empty() || frame.symbol == "??") return FrameKind::kShown;
  return classify_name(qualified_name(frame.symbol));
}

const char* frame_kind_name(FrameKind kind) {
  switch (kind) {
    case FrameKind::kShown:
      return "shown";
    case FrameKind::kDispatcher:
      return "dispatcher";
    case FrameKind::kInterpreter:
      return "interpreter";
    case FrameKind::kStartup:
      return "startup";
  }
  return "?";
}

std::string short_frame_text(const Frame& frame) {
  if (frame.symbol.empty() || frame.symbol == "??") return frame.to_string();
  std::string name = elide_symbol(frame.symbol);
  // A lambda's call operator says nothing its name does not:
  // "f(…)::{lambda(…)#1}::operator()(…) const" -> "f(…)::{lambda(…)#1}".
  size_t lambda = name.rfind("}::operator()(");
  if (lambda != std::string::npos && name.rfind("{lambda(", lambda) != std::string::npos) name.resize(lambda + 1);
  return name + (frame.module.empty() ? "" : " (" + frame.module + ")");
}

std::vector<FoldedLine> fold_frames(const std::vector<Frame>& frames, const FoldOptions& options) {
  std::vector<FoldedLine> out;
  if (options.full) {
    for (size_t i = 0; i < frames.size(); ++i) out.push_back({frames[i].to_string(), static_cast<int>(i)});
    return out;
  }
  std::vector<FrameKind> kinds;
  for (const Frame& f : frames) kinds.push_back(frame_kind(f));
  // libc's static __libc_start_call_main has no dynamic symbol: an unnamed
  // libc frame just inside a startup frame is startup too.
  for (size_t i = frames.size(); i-- > 1;) {
    const Frame& f = frames[i - 1];
    bool unnamed_libc = (f.symbol.empty() || f.symbol == "??") && starts_with(f.module, "libc.so");
    if (unnamed_libc && kinds[i] == FrameKind::kStartup) kinds[i - 1] = FrameKind::kStartup;
  }
  int shown = 0;
  size_t i = 0;
  while (i < frames.size()) {
    if (options.max_frames >= 0 && shown >= options.max_frames) {
      // Past the cap only a final run of plumbing is still worth its one line.
      bool more_to_show = false;
      for (size_t k = i; k < frames.size(); ++k) more_to_show |= kinds[k] == FrameKind::kShown;
      if (more_to_show) {
        out.push_back({std::string(kEllipsis) + " " + std::to_string(frames.size() - i) + " more (--full-frames)", -1});
        break;
      }
    }
    if (kinds[i] == FrameKind::kShown) {
      out.push_back({short_frame_text(frames[i]), static_cast<int>(i)});
      ++shown;
      ++i;
      continue;
    }
    std::set<FrameKind> run;
    size_t j = i;
    for (; j < frames.size() && kinds[j] != FrameKind::kShown; ++j) run.insert(kinds[j]);
    out.push_back({fold_label(j - i, run), -1});
    i = j;
  }
  return out;
}

}  // namespace syncscope
