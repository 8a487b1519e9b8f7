// The recorded calls of one execution of a finding's statement (issue 27,
// docs/what-if.md, "The statement a read-back is in"): what the fix "read it
// every N steps" takes out of a step. print(loss) formats a CUDA tensor with
// a dozen kernels and five read-backs, and the Python work between them;
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
// accumulation runs it).
#pragma once

#include <cstdint>
#include <vector>

#include "trace/reader.h"
#include "whatif/trace_program.h"

namespace syncscope::whatif {

// print(tensor) made up to 9 launches between two of its read-backs (a
// scalar loss, PyTorch 2.11 on an H200); a model's forward pass makes far
// more.
inline constexpr size_t kMaxCallsInsideStatement = 16;

// Per op of `built`: true when it lies within an execution of the statement
// of the call site (tid, stack_id): its first call to its last, both
// included, on that thread. All false when the site has no Python frame
// outside PyTorch and the standard library.
std::vector<bool> statement_span_ops(const TraceProgram& built, const ProcessTrace& trace, uint32_t tid,
                                     uint32_t stack_id);

}  // namespace syncscope::whatif
