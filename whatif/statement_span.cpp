#include "whatif/statement_span.h"

#include <optional>
#include <unordered_map>

#include "trace/code_ownership.h"
#include "trace/process_info_keys.h"

namespace syncscope::whatif {
namespace {

// The statement's frames, outermost last: the stack's frames from its line
// that syncs outwards. Empty when every frame is PyTorch's or the standard
// library's (or the stack has no Python frames).
std::vector<PythonFrame> statement_frames(const ProcessTrace& trace, uint32_t stack_id) {
  auto stack = trace.python_stacks.find(stack_id);
  if (stack == trace.python_stacks.end()) return {};
  const std::string cwd = trace.info(info_key::kCwd);
  const std::vector<PythonFrame>& frames = stack->second;
  for (size_t i = 0; i < frames.size(); ++i) {
    auto code = trace.python_code.find(frames[i].code_id);
    const std::string& file = code != trace.python_code.end() ? code->second.file : std::string();
    if (outside_framework(code_owner(file, {}, cwd).owner)) {
      return std::vector<PythonFrame>(frames.begin() + static_cast<std::ptrdiff_t>(i), frames.end());
    }
  }
  return {};
}

// Whether a call's stack is in the statement (its Python frames end with
// the statement's), another statement's, or says nothing (no Python frames).
enum class Where { kInside, kElsewhere, kUnknown };

class StatementMatcher {
 public:
  StatementMatcher(const ProcessTrace& trace, std::vector<PythonFrame> statement)
      : trace_(trace), statement_(std::move(statement)) {}

  Where where(uint32_t stack_id) {
    if (stack_id == 0) return Where::kUnknown;
    auto cached = cache_.find(stack_id);
    if (cached != cache_.end()) return cached->second;
    return cache_[stack_id] = classify(stack_id);
  }

 private:
  Where classify(uint32_t stack_id) const {
    auto stack = trace_.python_stacks.find(stack_id);
    if (stack == trace_.python_stacks.end() || stack->second.empty()) return Where::kUnknown;
    const std::vector<PythonFrame>& frames = stack->second;
    if (frames.size() < statement_.size()) return Where::kElsewhere;
    const size_t offset = frames.size() - statement_.size();
    for (size_t j = 0; j < statement_.size(); ++j) {
      const PythonFrame& a = frames[offset + j];
      const PythonFrame& b = statement_[j];
      if (a.code_id != b.code_id || a.line != b.line) return Where::kElsewhere;
    }
    return Where::kInside;
  }

  const ProcessTrace& trace_;
  const std::vector<PythonFrame> statement_;
  std::unordered_map<uint32_t, Where> cache_;
};

}  // namespace

std::vector<bool> statement_span_ops(const TraceProgram& built, const ProcessTrace& trace, uint32_t tid,
                                     uint32_t stack_id) {
  const size_t n = built.call_site_of_op.size();
  std::vector<bool> out(n, false);
  std::vector<PythonFrame> statement = statement_frames(trace, stack_id);
  if (statement.empty()) return out;
  StatementMatcher matcher(trace, std::move(statement));

  std::optional<size_t> first, last;  // the open execution's first and last call of the statement
  size_t calls_without_stack = 0;
  auto close = [&] {
    if (first) {
      for (size_t i = *first; i <= *last; ++i) out[i] = true;
    }
    first.reset();
    last.reset();
    calls_without_stack = 0;
  };
  for (size_t i = 0; i < n; ++i) {
    const auto [op_tid, op_stack] = built.call_site_of_op[i];
    if (last && built.program.ops[i].step != built.program.ops[*last].step) close();
    if (op_tid != tid) {
      close();
      continue;
    }
    switch (matcher.where(op_stack)) {
      case Where::kInside:
        if (!first) first = i;
        last = i;
        calls_without_stack = 0;
        break;
      case Where::kElsewhere:
        close();
        break;
      case Where::kUnknown:
        if (first && ++calls_without_stack > kMaxCallsInsideStatement) close();
        break;
    }
  }
  close();
  return out;
}

}  // namespace syncscope::whatif
