#include "whatif/statement_span.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <unordered_map>
#include <utility>

#include "trace/api.h"
#include "trace/code_ownership.h"
#include "segmentation/call_tokens.h"
#include "trace/process_info_keys.h"

namespace syncscope::whatif {
namespace {

// The statement's frames, outermost last: the stack's frames from its line
// that syncs outwards. Empty when every frame is PyTorch's or the standard
// library's (or the stack has no Python frames).
std::vector<PythonFrame> statement_frames(const ProcessTrace& trace, uint32_t stack_id,
                                          const CodeOwnershipOptions& options) {
  auto stack = trace.python_stacks.find(stack_id);
  if (stack == trace.python_stacks.end()) return {};
  const std::string cwd = trace.info(info_key::kCwd);
  const std::vector<PythonFrame>& frames = stack->second;
  for (size_t i = 0; i < frames.size(); ++i) {
    auto code = trace.python_code.find(frames[i].code_id);
    const std::string& file = code != trace.python_code.end() ? code->second.file : std::string();
    if (outside_framework(code_owner(file, options, cwd).owner)) {
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

// The statement's executions as Python line events bound them, on the
// trace clock: from each start of the line of the innermost statement frame
// whose code object has line events on `tid` (the line watch sees the
// functions that step the optimizer, so a print() inside a helper is timed
// by the loop's line that calls the helper) to the next event of that code
// object: another line, or the frame returning. Empty without line events.
// Past the line that syncs, only the user's own lines may stand for it: a
// library's loop runs its line that calls the hooks (Lightning's
// on_train_batch_end) whatever the user sets; running it less often is no
// fix the user can make.
std::vector<std::pair<uint64_t, uint64_t>> line_executions(const ProcessTrace& trace, uint32_t tid,
                                                           const std::vector<PythonFrame>& statement,
                                                           const CodeOwnershipOptions& options) {
  const auto line_api = static_cast<uint16_t>(ApiId::syncscope_python_line);
  std::unordered_map<uint32_t, std::vector<std::pair<uint64_t, uint32_t>>> lines_of_code;  // code -> (when, line)
  for (const Event& e : trace.events) {
    if (e.api == line_api && e.tid == tid) {
      lines_of_code[static_cast<uint32_t>(e.dst)].emplace_back(e.start_ns, static_cast<uint32_t>(e.bytes));
    }
  }
  std::vector<std::pair<uint64_t, uint64_t>> out;
  const std::string cwd = trace.info(info_key::kCwd);
  for (size_t f = 0; f < statement.size(); ++f) {
    const PythonFrame& frame = statement[f];
    if (f > 0) {
      auto code = trace.python_code.find(frame.code_id);
      if (code == trace.python_code.end() || code_owner(code->second.file, options, cwd).owner != CodeOwner::kUser) {
        continue;
      }
    }
    auto found = lines_of_code.find(frame.code_id);
    if (found == lines_of_code.end()) continue;
    std::optional<uint64_t> open;
    for (const auto& [when, line] : found->second) {
      if (open) out.emplace_back(*open, when);
      open.reset();
      if (line == frame.line) open = when;
    }
    if (!out.empty()) return out;
  }
  return out;
}

// One execution: ops first..last of `built`, both included.
struct Execution {
  size_t first = 0, last = 0;
};

// The executions as the calls alone bound them (the header's rule).
std::vector<Execution> call_executions(const TraceProgram& built, uint32_t tid, StatementMatcher& matcher) {
  std::vector<Execution> out;
  std::optional<size_t> first, last;  // the open execution's first and last call of the statement
  size_t calls_without_stack = 0;
  auto close = [&] {
    if (first) out.push_back({*first, *last});
    first.reset();
    last.reset();
    calls_without_stack = 0;
  };
  for (size_t i = 0; i < built.call_site_of_op.size(); ++i) {
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

// The calls of `built` in start order, on the trace clock.
std::vector<uint64_t> op_starts(const TraceProgram& built, const ProcessTrace& trace) {
  std::vector<uint64_t> out;
  out.reserve(built.event_of_op.size());
  for (size_t event : built.event_of_op) out.push_back(trace.events[event].start_ns);
  return out;
}

// The ops whose call starts in [from, to).
std::pair<size_t, size_t> ops_starting_in(const std::vector<uint64_t>& starts, uint64_t from, uint64_t to) {
  const auto begin = std::lower_bound(starts.begin(), starts.end(), from);
  const auto end = std::lower_bound(begin, starts.end(), to);
  return {static_cast<size_t>(begin - starts.begin()), static_cast<size_t>(end - starts.begin())};
}

// Whether the line's execution, the ops [ops.first, ops.second), may stand
// for the calls' execution `calls`: it holds no call of another statement,
// stays in one step, and adds at most kMaxCallsInsideStatement calls of the
// thread before the first call and after the last.
bool line_bounds_calls(const TraceProgram& built, uint32_t tid, StatementMatcher& matcher, const Execution& calls,
                       std::pair<size_t, size_t> ops) {
  size_t before = 0, after = 0;
  for (size_t i = ops.first; i < ops.second; ++i) {
    const auto [op_tid, op_stack] = built.call_site_of_op[i];
    if (op_tid != tid) continue;
    if (built.program.ops[i].step != built.program.ops[calls.first].step) return false;
    if (matcher.where(op_stack) == Where::kElsewhere) return false;
    before += i < calls.first;
    after += i > calls.last;
  }
  return before <= kMaxCallsInsideStatement && after <= kMaxCallsInsideStatement;
}

// The part of the host work before each op (which ends where the op's call
// starts) that lies inside [from, to), added to `work`: the ops starting
// inside, and the first one after (the work after the statement's last call).
void add_host_work_inside(const TraceProgram& built, const std::vector<uint64_t>& starts, uint64_t from, uint64_t to,
                          std::vector<uint64_t>* work) {
  auto [first, last] = ops_starting_in(starts, from, to);
  if (last < starts.size()) ++last;
  for (size_t i = first; i < last; ++i) {
    const uint64_t end = starts[i];
    const uint64_t begin = end - std::min(end, built.program.ops[i].host_before_ns);
    if (end <= from || begin >= to) continue;
    (*work)[i] += std::min(end, to) - std::max(begin, from);
  }
}

}  // namespace

StatementSpan statement_span(const TraceProgram& built, const ProcessTrace& trace, uint32_t tid, uint32_t stack_id,
                             const CodeOwnershipOptions& code, SpanStart start) {
  const size_t n = built.call_site_of_op.size();
  StatementSpan out{std::vector<bool>(n, false), std::vector<uint64_t>(n, 0), 0, 0};
  std::vector<PythonFrame> statement = statement_frames(trace, stack_id, code);
  if (statement.empty()) return out;
  const std::vector<std::pair<uint64_t, uint64_t>> lines = line_executions(trace, tid, statement, code);
  StatementMatcher matcher(trace, std::move(statement));

  const std::vector<uint64_t> starts = op_starts(built, trace);
  std::vector<bool> line_used(lines.size(), false);
  std::vector<uint64_t> heads, tails;  // of the executions lines bound: the work before the first call, after the last
  std::vector<Execution> unwatched;    // executions no line event bounds (the watch's budget was spent)
  for (const Execution& calls : call_executions(built, tid, matcher)) {
    const uint64_t first_start = starts[calls.first];
    // The line execution holding the first call (the executions are in order).
    auto line = std::upper_bound(lines.begin(), lines.end(), first_start,
                                 [](uint64_t t, const auto& l) { return t < l.first; });
    if (line == lines.begin() || first_start >= std::prev(line)->second) {
      line = lines.end();
    } else {
      --line;
    }
    const size_t l = static_cast<size_t>(line - lines.begin());
    if (line != lines.end() && line_used[l]) continue;  // an earlier part of the same execution took it all
    ++out.executions;
    const std::pair<size_t, size_t> inside = line != lines.end()
                                                 ? ops_starting_in(starts, line->first, line->second)
                                                 : std::pair<size_t, size_t>{0, 0};
    if (line != lines.end() && line_bounds_calls(built, tid, matcher, calls, inside)) {
      const bool from_line = start == SpanStart::kLineStart;
      const size_t first = from_line ? inside.first : calls.first;
      for (size_t i = first; i < inside.second; ++i) out.ops[i] = built.call_site_of_op[i].first == tid;
      add_host_work_inside(built, starts, from_line ? line->first : first_start, line->second, &out.host_work_ns);
      uint64_t head = 0, tail = 0;
      for (size_t i = first; i <= calls.first; ++i) head += out.host_work_ns[i];
      for (size_t i = calls.last + 1; i <= inside.second && i < n; ++i) tail += out.host_work_ns[i];
      heads.push_back(head);
      tails.push_back(tail);
      line_used[l] = true;
      ++out.executions_from_lines;
      continue;
    }
    for (size_t i = calls.first; i <= calls.last; ++i) {
      out.ops[i] = true;
      if (i > calls.first) out.host_work_ns[i] = built.program.ops[i].host_before_ns;
    }
    if (line == lines.end()) unwatched.push_back(calls);
  }
  // Executions after the line watch stopped (its budget, line_events.cpp)
  // take the median work before and after of those it bounded: the same
  // line does the same work.
  if (!heads.empty()) {
    const uint64_t head = segmentation::median(heads), tail = segmentation::median(tails);
    for (const Execution& calls : unwatched) {
      out.host_work_ns[calls.first] = std::min(head, built.program.ops[calls.first].host_before_ns);
      if (calls.last + 1 < n) {
        uint64_t& after = out.host_work_ns[calls.last + 1];
        after = std::min(after + tail, built.program.ops[calls.last + 1].host_before_ns);
      }
      ++out.executions_from_lines;
    }
  }
  return out;
}

}  // namespace syncscope::whatif
