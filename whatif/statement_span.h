// The recorded calls of one execution of a finding's statement (issue 27,
// docs/what-if.md, "The statement a read-back is in"): what the fix "read it
// every N steps" takes out of a step. print(loss) formats a CUDA tensor with
// a dozen kernels and eight read-backs, and the Python work between them;
// printing every N steps removes all of it, not only the waits.
//
// The statement is the finding's "line that syncs": the innermost Python
// frame of its stack outside PyTorch and the standard library
// (trace/code_ownership.h), reached through the same calling frames. Its
// calls are those whose Python stack ends with the same frames. Only calls
// that capture a stack (syncs, copies, allocations) say where they come
// from, so an execution runs from one such call to the last one before
// something else is seen: a call of another thread (autograd's backward
// while the statement's thread waits), a call whose stack is another
// statement's, or more than kMaxCallsInsideStatement calls without a stack
// (a forward pass between two executions of the line, as gradient
// accumulation runs it). The Python work before the first call and after
// the last is seen only with Python line events (Python 3.12+).
#pragma once

#include <cstdint>
#include <vector>

#include "trace/code_ownership.h"
#include "trace/reader.h"
#include "whatif/trace_program.h"

namespace syncscope::whatif {

// print(tensor) made up to 9 launches between two of its read-backs (a
// scalar loss, PyTorch 2.11 on an H200); a model's forward pass makes far
// more.
inline constexpr size_t kMaxCallsInsideStatement = 16;

// Where each execution's span begins: where the line began (every-n-steps
// and drop-statement take the whole statement), or at its first call that
// says where it comes from (fixed-shape: x[mask] reads back nonzero's
// count, and what follows is the work the count sized; the mask's own
// computation before it stays).
enum class SpanStart : uint8_t { kLineStart, kFirstCall };

// What removing the statement's executions takes out of the program.
struct StatementSpan {
  // Per op of `built`: a call of an execution of the statement.
  std::vector<bool> ops;
  // Per op: the host's own work before it (Op::host_before_ns) that lies
  // inside an execution. From calls alone, the work between an execution's
  // consecutive calls; with Python line events, also the work before its
  // first call and after its last, back to where the line began and on to
  // where the next one did.
  std::vector<uint64_t> host_work_ns;
  // The executions, and those bounded by Python line events
  // (python/sitecustomize.py's line watch) or, after the watch stopped,
  // given the median work before and after of those it bounded.
  size_t executions = 0;
  size_t executions_from_lines = 0;
};

// The executions of the statement of the call site (tid, stack_id) on that
// thread. Each is its first call to its last, both included; where the
// recording has Python line events (syncscope_python_line) of a frame of
// the statement, from the line's start to the next line's, provided that
// this adds no more than kMaxCallsInsideStatement calls at either end and
// stays inside one step: a line that also computes what it reads back
// (`total += model(x).sum().item()`) would otherwise take the forward pass
// with it. Executions after the watch stopped (it records 250,000 line
// events, preload/python/line_events.cpp) take the median work before the
// first call and after the last of those it bounded. Empty spans when the
// site has no Python frame outside PyTorch and the standard library.
// `code`: --user-code, --library-code, as the report names the line.
// `start`: kFirstCall leaves out each execution's work before its first
// call (the ops and the host work, none for executions after the watch).
StatementSpan statement_span(const TraceProgram& built, const ProcessTrace& trace, uint32_t tid, uint32_t stack_id,
                             const CodeOwnershipOptions& code = {}, SpanStart start = SpanStart::kLineStart);

}  // namespace syncscope::whatif
