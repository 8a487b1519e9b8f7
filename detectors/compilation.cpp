#include "detectors/compilation.h"

#include <string_view>
#include <unordered_map>

namespace syncscope {
namespace {

// Python files (and, where the file also runs compiled code, functions)
// that only run while compiling. Running a compiled graph goes through
// none of them: a cache hit calls the graph from Dynamo's C frame hook.
struct CompilerFrame {
  std::string_view file;      // suffix of the recorded file name
  std::string_view function;  // a part of the function's name; "" for any
};
constexpr CompilerFrame kCompilerFrames[] = {
    {"torch/_dynamo/convert_frame.py", ""},              // Dynamo: every compile and recompile
    {"torch/_inductor/compile_fx.py", ""},               // Inductor: forward and (lazily) backward graphs
    {"torch/_inductor/select_algorithm.py", ""},         // max-autotune's choice of kernels
    {"torch/_inductor/autotune_process.py", ""},         // its benchmarking subprocess driver
    {"torch/_inductor/runtime/triton_heuristics.py", "autotune"},  // a Triton kernel's first runs
    {"torch/_inductor/runtime/triton_heuristics.py", "benchmark"},
    {"torch/_inductor/runtime/triton_heuristics.py", "precompile"},
};

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_compiler_code(const PythonCode& code) {
  for (const CompilerFrame& frame : kCompilerFrames) {
    if (!ends_with(code.file, frame.file)) continue;
    if (frame.function.empty() || code.function.find(frame.function) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

void place_compilation_in_warmup(const ProcessTrace& trace, Segmentation* segmentation) {
  if (trace.python_code.empty()) return;
  std::unordered_map<uint32_t, bool> compiler_code;
  for (const auto& [id, code] : trace.python_code) {
    if (is_compiler_code(code)) compiler_code[id] = true;
  }
  if (compiler_code.empty()) return;
  std::unordered_map<uint32_t, bool> compiling;  // stack id -> inside a compilation
  for (const auto& [stack, frames] : trace.python_stacks) {
    for (const PythonFrame& frame : frames) {
      if (compiler_code.count(frame.code_id)) {
        compiling[stack] = true;
        break;
      }
    }
  }
  if (compiling.empty()) return;
  for (size_t i = 0; i < trace.events.size() && i < segmentation->places.size(); ++i) {
    const uint32_t stack = trace.events[i].stack_id;
    if (stack == 0 || !compiling.count(stack)) continue;
    EventPlace& place = segmentation->places[i];
    if (place.phase != Phase::kSteady) continue;
    place.phase = Phase::kWarmup;
    place.phase_index = -1;
    place.step = 0;
  }
}

}  // namespace syncscope
