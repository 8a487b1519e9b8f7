#include "whatif/replay.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace syncscope::whatif {
namespace {

struct Stream {
  uint64_t ready = 0;             // when its last queued work finishes
  std::deque<uint64_t> finishes;  // finish times of work not yet known to be done, oldest first
  bool non_blocking = false;      // not ordered with the legacy default stream
};

class Machine {
 public:
  // `calibrated`: a copy of `program` whose waiting calls get the time
  // their replayed wait does not explain (with_unexplained_time_in_calls).
  explicit Machine(const Program& program, Program* calibrated = nullptr)
      : program_(program), calibrated_(calibrated) {
    for (uint64_t handle : program.non_blocking_streams) stream(handle).non_blocking = true;
  }

  Replay run() {
    Replay out;
    out.waited_ns.reserve(program_.ops.size());
    for (size_t i = 0; i < program_.ops.size(); ++i) {
      const Op& op = program_.ops[i];
      t_ += op.host_before_ns;
      queued_by_op_ = 0;
      const uint64_t blocked = out.host_blocked_ns;
      play(op, out);
      if (calibrated_ != nullptr) {
        calibrate(calibrated_->ops[i]);
      } else {
        t_ += op.after_ns;
      }
      out.waited_ns.push_back(out.host_blocked_ns - blocked);
      if (out.step_end_ns.size() <= op.step) {
        out.step_end_ns.resize(op.step + 1, last(out.step_end_ns));
        out.host_end_ns.resize(op.step + 1, last(out.host_end_ns));
      }
      uint64_t& end = out.step_end_ns[op.step];
      end = std::max({end, t_, queued_by_op_});
      out.host_end_ns[op.step] = t_;
    }
    out.gpu_end_ns = all_ready_;
    return out;
  }

 private:
  static uint64_t last(const std::vector<uint64_t>& ends) { return ends.empty() ? 0 : ends.back(); }

  void play(const Op& op, Replay& out) {
    switch (op.kind) {
      case OpKind::kEnqueue:
        enqueue(op, out);
        t_ += op.call_ns;
        break;
      case OpKind::kBlockingCopy: {
        enqueue(op, out);
        wait_until(t_ + op.call_ns, stream(op.stream).ready, out);
        break;
      }
      case OpKind::kStreamSync:
        wait_until(t_ + op.call_ns, stream(op.stream).ready, out);
        break;
      case OpKind::kDeviceSync:
        wait_until(t_ + op.call_ns, all_ready_, out);
        break;
      case OpKind::kEventRecord:
        events_[op.event] = stream(op.stream).ready;
        t_ += op.call_ns;
        break;
      case OpKind::kEventSync:
        wait_until(t_ + op.call_ns, event_time(op.event), out);
        break;
      case OpKind::kStreamWait: {
        Stream& s = stream(op.stream);
        s.ready = std::max(s.ready, event_time(op.event));
        t_ += op.call_ns;
        break;
      }
      case OpKind::kHostOnly:
        t_ += op.call_ns;
        break;
    }
  }

  static bool waits(OpKind kind) {
    return kind == OpKind::kBlockingCopy || kind == OpKind::kStreamSync || kind == OpKind::kDeviceSync ||
           kind == OpKind::kEventSync;
  }

  // A waiting call that returns, in the replay, before it returned in the
  // recording (both from the program's start): the rest, up to the call's
  // recorded length, is host work after the wait, and the replay goes on
  // from the recorded time. A replay already past the recorded time (an
  // earlier call waited longer than recorded for the same work) adds nothing.
  void calibrate(Op& op) {
    const uint64_t recorded = op.call_ns + op.waited_ns + op.after_ns;
    recorded_t_ += op.host_before_ns + recorded;
    if (!waits(op.kind) || !op.works_besides_waiting) {
      t_ += op.after_ns;
      return;
    }
    const uint64_t behind = recorded_t_ > t_ ? recorded_t_ - t_ : 0;
    op.after_ns = std::min(behind, recorded > op.call_ns ? recorded - op.call_ns : 0);
    op.waited_ns = recorded - op.call_ns - op.after_ns;
    t_ += op.after_ns;
  }

  // The host returns from a call at `returns` unless what it waits for is
  // done later.
  void wait_until(uint64_t returns, uint64_t done, Replay& out) {
    if (done > returns) out.host_blocked_ns += done - returns;
    t_ = std::max(returns, done);
  }

  void enqueue(const Op& op, Replay& out) {
    Stream& s = stream(op.stream);
    // A full queue holds the launch until its oldest work finishes.
    while (!s.finishes.empty() && s.finishes.front() <= t_) s.finishes.pop_front();
    if (s.finishes.size() >= program_.queue_depth) {
      const uint64_t frees = s.finishes[s.finishes.size() - program_.queue_depth];
      wait_until(t_, frees, out);
      while (!s.finishes.empty() && s.finishes.front() <= t_) s.finishes.pop_front();
    }
    uint64_t start = std::max(t_ + op.call_ns + program_.launch_latency_ns, s.ready);
    // The legacy default stream and the blocking streams wait for each other.
    if (op.stream == kLegacyStream) {
      start = std::max(start, blocking_ready_);
    } else if (!s.non_blocking) {
      start = std::max(start, stream(kLegacyStream).ready);
    }
    s.ready = start + op.gpu_ns;
    queued_by_op_ = s.ready;
    s.finishes.push_back(s.ready);
    all_ready_ = std::max(all_ready_, s.ready);
    if (!s.non_blocking) blocking_ready_ = std::max(blocking_ready_, s.ready);
  }

  Stream& stream(uint64_t handle) { return streams_[handle]; }

  uint64_t event_time(uint64_t event) const {
    auto it = events_.find(event);
    return it == events_.end() ? 0 : it->second;  // never recorded: complete, as CUDA says
  }

  const Program& program_;
  Program* calibrated_;
  uint64_t recorded_t_ = 0;  // calibrating: the recorded host's time at the end of the current op
  uint64_t t_ = 0;
  uint64_t queued_by_op_ = 0;    // when the work the current op queued finishes (0: none)
  uint64_t all_ready_ = 0;       // when every stream's queued work finishes
  uint64_t blocking_ready_ = 0;  // the same for the legacy stream and the blocking streams
  std::unordered_map<uint64_t, Stream> streams_;
  std::unordered_map<uint64_t, uint64_t> events_;
};

}  // namespace

double Replay::mean_step_ns(uint32_t first, uint32_t last) const {
  if (last > step_end_ns.size()) last = static_cast<uint32_t>(step_end_ns.size());
  if (first >= last) return 0;
  const uint64_t begin = first == 0 ? 0 : step_end_ns[first - 1];
  return static_cast<double>(step_end_ns[last - 1] - begin) / static_cast<double>(last - first);
}

Replay replay(const Program& program) { return Machine(program).run(); }

Program with_unexplained_time_in_calls(const Program& program) {
  Program calibrated = program;
  Machine(program, &calibrated).run();
  return calibrated;
}

}  // namespace syncscope::whatif
