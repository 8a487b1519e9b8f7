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
  // Per stream, the op that finished last and when, as settled so far.
  struct Settled {
    size_t op = 0;
    uint64_t finish = 0;
    bool any = false;
  };
  std::unordered_map<uint64_t, Settled> settled;
  uint64_t t = 0;  // the recorded host time
  // Gives the ops waited for GPU times that finish the last of them at
  // `done`: kHigh, each runs until the next is launched, so the GPU is busy
  // without a gap from the first launch; kLow, the last one holds it all.
  // A wait with nothing queued since the stream was last settled means its
  // last work ran longer than thought: that op is stretched to `done`.
  auto settle = [&](uint64_t stream, uint64_t done) {
    std::vector<Queued>& ops = queued[stream];
    Settled& last = settled[stream];
    if (ops.empty()) {
      if (last.any && done > last.finish) {
        out.ops[last.op].gpu_ns += done - last.finish;
        last.finish = done;
      }
      return;
    }
    for (size_t k = 0; k + 1 < ops.size(); ++k) {
      const uint64_t next = std::min(ops[k + 1].launch_ns, done);
      out.ops[ops[k].op].gpu_ns =
          bound == GpuBound::kHigh && next > ops[k].launch_ns ? next - ops[k].launch_ns : 0;
    }
    const Queued& final_op = ops.back();
    out.ops[final_op.op].gpu_ns = done > final_op.launch_ns ? done - final_op.launch_ns : 0;
    last = Settled{final_op.op, std::max(done, final_op.launch_ns), true};
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
    const bool waited = op.waited_ns > 0;
    auto finish = [&](uint64_t stream) {
      if (waited) {
        settle(stream, returns);
      } else {
        queued[stream].clear();
      }
    };
    if (waits_on_stream(op.kind)) {
      finish(op.stream);
    } else if (op.kind == OpKind::kDeviceSync) {
      std::vector<uint64_t> streams;
      for (const auto& [stream, ops] : queued) {
        if (!ops.empty()) streams.push_back(stream);
      }
      if (streams.empty() && waited) {
        // Nothing queued anywhere: the stream that finished last ran longer.
        const Settled* latest = nullptr;
        uint64_t latest_stream = 0;
        for (const auto& [stream, last] : settled) {
          if (last.any && (latest == nullptr || last.finish > latest->finish)) latest = &last, latest_stream = stream;
        }
        if (latest != nullptr) settle(latest_stream, returns);
      }
      for (uint64_t stream : streams) finish(stream);
    } else if (op.kind == OpKind::kEventSync) {
      auto it = event_stream.find(op.event);
      if (it != event_stream.end()) finish(it->second);
    }
    t = returns;
  }
  return out;
}

}  // namespace syncscope::whatif
