// A recorded process's steady steps as a replayable Program (issue 27,
// docs/what-if.md, "From a trace"): each call of the threads that feed the
// GPU, in start order, mapped to an Op; GPU times from the trace's GPU
// timeline (the same work's median outside a sampled one's windows).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "trace/reader.h"
#include "whatif/replay.h"

namespace syncscope::whatif {

// The calls of one finding: its thread and call site. A read-back's copy,
// made just before its sync on the same thread and stream, joins the sync's
// site.
struct SiteSpec {
  uint32_t site = 0;  // the id the fixes name (non-zero)
  uint32_t tid = 0;
  uint32_t stack_id = 0;
};

struct TraceProgram {
  Program program;
  std::vector<size_t> event_of_op;  // index into the trace's events, per op
  uint32_t steps = 0;               // the step windows given
  bool gpu_measured = false;        // the timeline timed (nearly) every op: see kMeasuredShare
};

// `steps`: the steady steps' [start, end) on the trace clock, in order; calls
// outside them are left out (and their time with them). The calls of every
// thread that queues or waits for GPU work in them are merged in start order:
// PyTorch's backward runs on autograd's threads while the training thread
// waits, so one sequence stands for the step.
TraceProgram program_from_trace(const ProcessTrace& trace, const std::vector<std::pair<uint64_t, uint64_t>>& steps,
                                const std::vector<SiteSpec>& sites);

}  // namespace syncscope::whatif
