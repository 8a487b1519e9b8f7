// Native frames as a person reads them. A PyTorch stack is mostly plumbing:
// the dispatcher's boxing wrappers (hundreds of characters of template
// arguments each), the generated at::_ops entry points, the interpreter's
// eval loop. The report elides template arguments and parameter lists,
// folds each run of plumbing frames into one line and shows a few frames
// per finding; what stays is what ran: the torch op (at::native::...), the
// Python binding, the CUDA API, the program's own functions. --full-frames
// shows every frame as the symbolizer named it.
#pragma once

#include <string>
#include <vector>

#include "sites/symbolizer.h"

namespace syncscope {

enum class FrameKind {
  kShown,        // worth a line of its own
  kDispatcher,   // c10 dispatcher, at::_ops, autograd/ADInplaceOrView wrappers, std::function, pybind11
  kInterpreter,  // CPython's eval loop and call protocol
  kStartup,      // thread and process entry (start_thread, __libc_start_main, std::thread)
};

// "c10::impl::wrap_kernel_functor_unboxed_<…>::call(…)": each balanced <...>
// becomes <…> and each parameter list (…); operator names and
// "(anonymous namespace)" are kept.
std::string elide_symbol(const std::string& symbol);

// The function's qualified name without return type, template arguments or
// parameters: "at::Tensor c10::Dispatcher::call<…>(…)" -> "c10::Dispatcher::call".
std::string qualified_name(const std::string& symbol);

FrameKind frame_kind(const Frame& frame);
const char* frame_kind_name(FrameKind kind);  // "dispatcher", "interpreter", "startup"

// One frame as the folded report shows it: "at::native::foo(…) (libtorch_cuda.so)",
// a lambda by its name without its operator(); an unnamed frame keeps its
// module offset ("libapp.so+0x30").
std::string short_frame_text(const Frame& frame);

struct FoldOptions {
  bool full = false;   // every frame, unelided (--full-frames)
  int max_frames = 6;  // frames of their own shown before "… N more"
};

struct FoldedLine {
  std::string text;
  int frame = -1;  // index into the frames for a frame's line; -1 for a fold or "more" line
};

// The lines to print for `frames` (innermost first).
std::vector<FoldedLine> fold_frames(const std::vector<Frame>& frames, const FoldOptions& options);

}  // namespace syncscope
