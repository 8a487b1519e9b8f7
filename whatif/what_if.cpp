#include "whatif/what_if.h"

#include <algorithm>
#include <unordered_map>

namespace syncscope::whatif {
namespace {

// Side streams and their events get handles no recorded stream or event has
// (real handles are user-space addresses, below 2^47).
constexpr uint64_t kSideHandleBase = uint64_t{1} << 62;

// Calls that change what a stream does: every-n-steps keeps them queued.
bool keeps_its_gpu_work_queued(OpKind kind) {
  return kind == OpKind::kEnqueue || kind == OpKind::kBlockingCopy || kind == OpKind::kEventRecord ||
         kind == OpKind::kStreamWait;
}

bool is_host_wait(OpKind kind) {
  return kind == OpKind::kStreamSync || kind == OpKind::kDeviceSync || kind == OpKind::kEventSync;
}

}  // namespace

const char* fix_name(Fix fix) {
  switch (fix) {
    case Fix::kReadLater:
      return "read-later";
    case Fix::kDropSync:
      return "drop-sync";
    case Fix::kPinnedAsync:
      return "pinned-async";
    case Fix::kSideStream:
      return "side-stream";
    case Fix::kDropCall:
      return "drop-call";
    case Fix::kEveryNSteps:
      return "every-n-steps";
  }
  return "?";
}

bool saving_is_a_floor(Fix fix) { return fix == Fix::kDropCall || fix == Fix::kEveryNSteps; }

Program apply_fixes(const Program& program, const std::vector<SiteFix>& fixes,
                    const std::vector<uint32_t>* site_of_op) {
  std::unordered_map<uint32_t, Fix> fix_of;
  for (const SiteFix& f : fixes) fix_of[f.site] = f.fix;
  Program out = program;
  out.ops.clear();
  out.ops.reserve(program.ops.size());
  uint64_t carried = 0;  // host work before a removed op, kept for the next one
  uint64_t side_events = 0;
  uint32_t statement_open = 0;  // the site whose statement the previous op was removed with (every-n-steps)
  for (size_t i = 0; i < program.ops.size(); ++i) {
    Op op = program.ops[i];
    if (site_of_op != nullptr) op.site = i < site_of_op->size() ? (*site_of_op)[i] : 0;
    auto it = op.site != 0 ? fix_of.find(op.site) : fix_of.end();
    if (it != fix_of.end() && it->second == Fix::kEveryNSteps) {
      // The statement's own host work (between its calls) goes with them;
      // what came before its first call stays, carried to the next op kept
      // when that first call goes (a sync).
      const uint64_t before = (statement_open != op.site ? op.host_before_ns : 0) + carried;
      statement_open = op.site;
      if (!keeps_its_gpu_work_queued(op.kind)) {
        carried = before;
        continue;
      }
      // What it queued stays queued, at no host time: the statement's GPU
      // work is small (print's formatting kernels, a 4-byte copy), and from
      // host timing alone the estimate may give a read-back's copy all the
      // GPU time its sync waited for (gpu_estimate.h).
      op.host_before_ns = before;
      carried = 0;
      op.call_ns = op.waited_ns = op.after_ns = 0;
      op.works_besides_waiting = false;
      if (op.kind == OpKind::kBlockingCopy) op.kind = OpKind::kEnqueue;
      out.ops.push_back(op);
      continue;
    }
    statement_open = 0;
    op.host_before_ns += carried;
    carried = 0;
    if (it == fix_of.end()) {
      out.ops.push_back(op);
      continue;
    }
    switch (it->second) {
      case Fix::kEveryNSteps:
        break;  // handled above
      case Fix::kReadLater:
      case Fix::kDropSync:
      case Fix::kPinnedAsync:
        if (is_host_wait(op.kind)) {
          carried = op.host_before_ns;  // the call is gone, the work around it is not
          continue;
        }
        if (op.kind == OpKind::kBlockingCopy) op.kind = OpKind::kEnqueue;
        out.ops.push_back(op);
        break;
      case Fix::kDropCall:
        carried = op.host_before_ns;
        continue;
      case Fix::kSideStream: {
        if (op.kind != OpKind::kEnqueue && op.kind != OpKind::kBlockingCopy) {
          out.ops.push_back(op);
          break;
        }
        const uint64_t compute = op.stream;
        op.stream = kSideHandleBase + op.site;
        if (std::find(out.non_blocking_streams.begin(), out.non_blocking_streams.end(), op.stream) ==
            out.non_blocking_streams.end()) {
          out.non_blocking_streams.push_back(op.stream);  // as torch.cuda.Stream() makes them
        }
        out.ops.push_back(op);
        Op record;
        record.kind = OpKind::kEventRecord;
        record.stream = op.stream;
        record.event = kSideHandleBase + (++side_events);
        record.step = op.step;
        Op wait = record;
        wait.kind = OpKind::kStreamWait;
        wait.stream = compute;
        out.ops.push_back(record);
        out.ops.push_back(wait);
        break;
      }
    }
  }
  return out;
}

}  // namespace syncscope::whatif
