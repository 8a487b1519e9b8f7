#include "whatif/trace_program.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "segmentation/call_tokens.h"
#include "trace/api.h"
#include "trace/event.h"
#include "trace/gpu_record.h"
#include "trace/recorder_cost.h"

namespace syncscope::whatif {
namespace {

// The part of a waiting call that is the call's own work, not the wait: what
// such a call costs when there is nothing to wait for (a no-op
// cudaStreamSynchronize, the bookkeeping of a copy or a free).
constexpr uint64_t kWaitingCallOwnNs = 3000;

uint64_t stream_of(const Event& e) {
  // The legacy default stream by either name; a per-thread default stream
  // (_ptsz, or the handle cudaStreamPerThread) is the calling thread's own.
  const bool per_thread = (e.flags & kFlagPerThreadStream) != 0 || e.stream == kStreamPerThread;
  if (per_thread && (e.stream == 0 || e.stream == kStreamPerThread)) return (uint64_t{1} << 61) | e.tid;
  return e.stream == kStreamLegacy ? kLegacyStream : e.stream;
}

bool is_pageable_host_copy(const Event& e) {
  const auto direction = static_cast<Direction>(e.direction);
  return (direction == Direction::kHostToDevice || direction == Direction::kDeviceToHost) &&
         static_cast<HostMem>(e.host_mem) != HostMem::kPinned;
}

// The Op a recorded call stands for, or false for calls the replay ignores
// (syncscope's own markers).
bool op_of(const Event& e, Op* op) {
  const ApiFamily family = api_family(e.api);
  const uint64_t took = host_ns_of(e);
  op->stream = stream_of(e);
  op->call_ns = took;
  auto waiting = [&](OpKind kind) {
    op->kind = kind;
    op->call_ns = std::min(took, kWaitingCallOwnNs);
    op->waited_ns = took - op->call_ns;
  };
  switch (family) {
    case ApiFamily::kMarker:
      return false;
    case ApiFamily::kLaunch:
    case ApiFamily::kGraphLaunch:
    case ApiFamily::kHostFunc:
      op->kind = OpKind::kEnqueue;
      return true;
    case ApiFamily::kMemset:
      if (e.flags & kFlagAsync) {
        op->kind = OpKind::kEnqueue;
      } else {
        waiting(OpKind::kBlockingCopy);
        op->works_besides_waiting = true;
      }
      return true;
    case ApiFamily::kCopy:
      // Asynchronous copies of pinned (or device) memory queue; the others
      // block the host until they are done.
      if ((e.flags & kFlagAsync) && !is_pageable_host_copy(e)) {
        op->kind = OpKind::kEnqueue;
      } else {
        waiting(OpKind::kBlockingCopy);
        op->works_besides_waiting = true;  // staging a pageable buffer, pinning
      }
      return true;
    case ApiFamily::kSync: {
      const std::string_view name = api_name(e.api);
      if (name.find("Device") != std::string_view::npos || name.find("Ctx") != std::string_view::npos) {
        waiting(OpKind::kDeviceSync);
      } else if (name.find("Event") != std::string_view::npos) {
        waiting(OpKind::kEventSync);
        op->event = e.dst;
      } else {
        waiting(OpKind::kStreamSync);
      }
      return true;
    }
    case ApiFamily::kFree:
      // cudaFree and cuMemFree synchronise the device; the stream-ordered
      // frees (cudaFreeAsync) do not.
      if (e.flags & kFlagAsync) {
        op->kind = OpKind::kHostOnly;
      } else {
        waiting(OpKind::kDeviceSync);
        op->works_besides_waiting = true;  // unmapping after the sync
      }
      return true;
    case ApiFamily::kHostFree:
      waiting(OpKind::kDeviceSync);  // cudaFreeHost synchronises too
      op->works_besides_waiting = true;
      return true;
    case ApiFamily::kEventRecord:
      op->kind = OpKind::kEventRecord;
      op->event = e.dst;
      return true;
    case ApiFamily::kStreamWait:
      op->kind = OpKind::kStreamWait;
      op->event = e.src;
      return true;
    default:
      op->kind = OpKind::kHostOnly;
      return true;
  }
}

bool feeds_gpu(OpKind kind) { return kind != OpKind::kHostOnly; }

// A prediction is "measured" when the timeline gave a time to at least this
// share of the queued work; else its GPU times are estimated from the host's.
constexpr double kMeasuredShare = 0.95;

// The same GPU work, for a sampled timeline: a kernel by its function, a
// copy or memset by API, direction and size.
struct WorkKey {
  uint16_t api;
  uint8_t direction;
  uint64_t what;  // kernel handle, or bytes
  bool operator==(const WorkKey& o) const { return api == o.api && direction == o.direction && what == o.what; }
};
struct WorkKeyHash {
  size_t operator()(const WorkKey& k) const { return std::hash<uint64_t>()(k.what * 31 + k.api * 7 + k.direction); }
};

WorkKey work_key(const Event& e) {
  const ApiFamily family = api_family(e.api);
  const bool kernel = family == ApiFamily::kLaunch || family == ApiFamily::kGraphLaunch;
  return WorkKey{kernel ? uint16_t{0} : e.api, e.direction, kernel ? e.dst : e.bytes};
}

// The median GPU time of each piece of work the timeline timed.
std::unordered_map<WorkKey, uint64_t, WorkKeyHash> typical_gpu_ns(const ProcessTrace& trace,
                                                                  const std::unordered_map<int64_t, uint64_t>& timed) {
  std::unordered_map<WorkKey, std::vector<uint64_t>, WorkKeyHash> samples;
  for (const auto& [index, ns] : timed) {
    if (index < 0 || static_cast<size_t>(index) >= trace.events.size()) continue;
    samples[work_key(trace.events[static_cast<size_t>(index)])].push_back(ns);
  }
  std::unordered_map<WorkKey, uint64_t, WorkKeyHash> out;
  for (auto& [key, values] : samples) out[key] = segmentation::median(std::move(values));
  return out;
}

}  // namespace

TraceProgram program_from_trace(const ProcessTrace& trace, const std::vector<std::pair<uint64_t, uint64_t>>& steps,
                                const std::vector<SiteSpec>& sites) {
  TraceProgram out;
  out.steps = static_cast<uint32_t>(steps.size());
  if (steps.empty()) return out;
  const uint64_t begin = steps.front().first, end = steps.back().second;

  // GPU time per call from the timeline; with a sampled one, the calls
  // outside its windows take the median time of the same work inside them.
  // With a full one, also when the GPU finished each call's work, for the
  // recorded step ends (Op::recorded_gpu_end_ns): with a sampled one some
  // steps would end with their GPU work and the rest without it.
  const bool sampled = !trace.gpu_windows.empty();
  std::unordered_map<int64_t, uint64_t> gpu_ns, gpu_end;
  for (const GpuActivity& a : trace.gpu_activity) {
    if (a.event_index < 0 || !gpu_kind_is_work(a.kind)) continue;
    gpu_ns[a.event_index] += a.end_ns > a.start_ns ? a.end_ns - a.start_ns : 0;
    if (!sampled) gpu_end[a.event_index] = std::max(gpu_end[a.event_index], a.end_ns);
  }
  std::unordered_map<WorkKey, uint64_t, WorkKeyHash> typical;
  if (sampled) typical = typical_gpu_ns(trace, gpu_ns);

  // The threads that queue or wait for GPU work inside the steps.
  std::set<uint32_t> feeding;
  for (const Event& e : trace.events) {
    if (e.start_ns < begin || e.start_ns >= end) continue;
    Op op;
    if (op_of(e, &op) && feeds_gpu(op.kind)) feeding.insert(e.tid);
  }

  // A call that captured its stack spent about this before it, the
  // recorder's work rather than the program's (Op::recorder_ns).
  const uint64_t capture_ns = mean_capture_ns(recorder_cost_of(trace));
  size_t step = 0;
  size_t queued_ops = 0, timed_ops = 0;
  uint64_t previous_end = begin;
  std::unordered_map<uint32_t, size_t> last_copy_of_thread;  // tid -> op index of its last D2H copy
  for (size_t i = 0; i < trace.events.size(); ++i) {
    const Event& e = trace.events[i];
    if (e.start_ns < begin || e.start_ns >= end || feeding.count(e.tid) == 0) continue;
    Op op;
    if (!op_of(e, &op)) continue;
    while (step + 1 < steps.size() && e.start_ns >= steps[step + 1].first) ++step;
    op.step = static_cast<uint32_t>(step);
    // Calls of different threads may overlap: their own time is counted once.
    op.host_before_ns = e.start_ns > previous_end ? e.start_ns - previous_end : 0;
    if (e.stack_id != 0) op.recorder_ns = std::min(op.host_before_ns, capture_ns);
    previous_end = std::max(previous_end, e.end_ns);
    auto found = gpu_ns.find(static_cast<int64_t>(i));
    auto done = gpu_end.find(static_cast<int64_t>(i));
    if (done != gpu_end.end() && done->second > begin) op.recorded_gpu_end_ns = done->second - begin;
    if (found != gpu_ns.end()) {
      op.gpu_ns = found->second;
    } else if (sampled) {
      auto same = typical.find(work_key(e));
      if (same != typical.end()) op.gpu_ns = same->second;
    }
    if (op.kind == OpKind::kEnqueue || op.kind == OpKind::kBlockingCopy) {
      ++queued_ops;
      if (found != gpu_ns.end() || (sampled && typical.count(work_key(e)) != 0)) ++timed_ops;
    }
    int64_t read_back_copy = -1;
    if (op.kind == OpKind::kStreamSync || op.kind == OpKind::kDeviceSync) {
      // A read-back: the device-to-host copy just before, same thread, same stream.
      auto copy = last_copy_of_thread.find(e.tid);
      if (copy != last_copy_of_thread.end() && copy->second + 1 == out.program.ops.size()) {
        const Op& c = out.program.ops[copy->second];
        if (op.kind == OpKind::kDeviceSync || c.stream == op.stream) read_back_copy = static_cast<int64_t>(copy->second);
      }
    }
    if (static_cast<Direction>(e.direction) == Direction::kDeviceToHost) {
      last_copy_of_thread[e.tid] = out.program.ops.size();
    }
    out.program.ops.push_back(op);
    out.event_of_op.push_back(i);
    out.call_site_of_op.emplace_back(e.tid, e.stack_id);
    out.read_back_copy_of_op.push_back(read_back_copy);
  }
  out.program = with_sites(out, sites);
  // Measured when the timeline timed nearly every piece of queued work (a
  // sampled one: the same kernel, or copy of the same size, in a window).
  out.gpu_measured = !trace.gpu_activity.empty() && queued_ops > 0 &&
                     static_cast<double>(timed_ops) >= kMeasuredShare * static_cast<double>(queued_ops);
  return out;
}

std::vector<uint32_t> sites_of_ops(const TraceProgram& built, const std::vector<SiteSpec>& sites) {
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> site_of;  // (tid, stack) -> site
  for (const SiteSpec& s : sites) site_of[{s.tid, s.stack_id}] = s.site;
  std::vector<uint32_t> out(built.call_site_of_op.size(), 0);
  for (size_t i = 0; i < out.size(); ++i) {
    auto site = site_of.find(built.call_site_of_op[i]);
    if (site != site_of.end()) out[i] = site->second;
  }
  // After every op's own site: a copy that is a site itself keeps its own.
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t copy = built.read_back_copy_of_op[i];
    if (out[i] == 0 || copy < 0) continue;
    if (site_of.count(built.call_site_of_op[static_cast<size_t>(copy)]) == 0) out[static_cast<size_t>(copy)] = out[i];
  }
  return out;
}

Program with_sites(const TraceProgram& built, const std::vector<SiteSpec>& sites) {
  Program out = built.program;
  const std::vector<uint32_t> marks = sites_of_ops(built, sites);
  for (size_t i = 0; i < out.ops.size(); ++i) out.ops[i].site = marks[i];
  return out;
}

}  // namespace syncscope::whatif
