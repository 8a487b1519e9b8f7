#include "whatif/gpu_estimate.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace syncscope::whatif {
namespace {

struct Queued {
  size_t op;           // index into the program's ops
  uint64_t launch_ns;  // when its work could start: the call's return plus the launch latency
};

bool waits_on_stream(OpKind kind) { return kind == OpKind::kStreamSync || kind == OpKind::kBlockingCopy; }

}  // namespace

Program with_estimated_gpu_time(const Program& program, GpuBound bound) {
  Program out = program;
  std::unordered_map<uint64_t, std::vector<Queued>> queued;  // per stream, since it was last known idle
  std::unordered_map<uint64_t, uint64_t> event_stream;
  uint64_t t = 0;  // the recorded host time
  // Gives the ops waited for GPU times that finish the last of them at
  // `done`, and forgets them: their stream is idle now. kHigh: each runs
  // until the next is launched, so the GPU is busy without a gap from the
  // first launch; kLow: the last one holds it all.
  auto settle = [&](std::vector<Queued>& ops, uint64_t done) {
    if (ops.empty()) return;
    for (size_t k = 0; k + 1 < ops.size(); ++k) {
      const uint64_t next = std::min(ops[k + 1].launch_ns, done);
      out.ops[ops[k].op].gpu_ns =
          bound == GpuBound::kHigh && next > ops[k].launch_ns ? next - ops[k].launch_ns : 0;
    }
    const Queued& last = ops.back();
    out.ops[last.op].gpu_ns = done > last.launch_ns ? done - last.launch_ns : 0;
    ops.clear();
  };
  for (size_t i = 0; i < out.ops.size(); ++i) {
    Op& op = out.ops[i];
    op.gpu_ns = 0;
    t += op.host_before_ns;
    const uint64_t returns = t + op.call_ns + op.waited_ns;
    if (op.kind == OpKind::kEnqueue || op.kind == OpKind::kBlockingCopy) {
      queued[op.stream].push_back(Queued{i, t + op.call_ns + program.launch_latency_ns});
    }
    if (op.kind == OpKind::kEventRecord) event_stream[op.event] = op.stream;
    // A wait that did not wait says only that the work was done by then:
    // nothing to spread, but the stream is idle from here.
    const uint64_t done = op.waited_ns > 0 ? returns : 0;
    if (waits_on_stream(op.kind)) {
      auto& ops = queued[op.stream];
      if (done > 0) settle(ops, done);
      ops.clear();
    } else if (op.kind == OpKind::kDeviceSync) {
      for (auto& [stream, ops] : queued) {
        if (done > 0) settle(ops, done);
        ops.clear();
      }
    } else if (op.kind == OpKind::kEventSync) {
      auto it = event_stream.find(op.event);
      if (it != event_stream.end()) {
        auto& ops = queued[it->second];
        if (done > 0) settle(ops, done);
        ops.clear();
      }
    }
    t = returns;
  }
  return out;
}

}  // namespace syncscope::whatif
