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
  // Per op, what marking sites needs (with_sites): its call site, and for a
  // stream or device sync the device-to-host copy just before it on its
  // thread and stream (a read-back), else -1.
  std::vector<std::pair<uint32_t, uint32_t>> call_site_of_op;  // (tid, stack id)
  std::vector<int64_t> read_back_copy_of_op;
};

// `steps`: the steady steps' [start, end) on the trace clock, in order; calls
// outside them are left out (and their time with them). The calls of every
// thread that queues or waits for GPU work in them are merged in start order:
// PyTorch's backward runs on autograd's threads while the training thread
// waits, so one sequence stands for the step.
TraceProgram program_from_trace(const ProcessTrace& trace, const std::vector<std::pair<uint64_t, uint64_t>>& steps,
                                const std::vector<SiteSpec>& sites);

// The program with the ops of `sites` marked (Op::site; every other op 0): a
// program built once per phase serves each of its findings
// (finding_predictions.cpp). A read-back's copy joins its sync's site unless
// it is a site itself.
Program with_sites(const TraceProgram& built, const std::vector<SiteSpec>& sites);
// The same marks, one per op of `built` (for predict() on a baseline
// prepared once without them, prediction.h).
std::vector<uint32_t> sites_of_ops(const TraceProgram& built, const std::vector<SiteSpec>& sites);

}  // namespace syncscope::whatif
