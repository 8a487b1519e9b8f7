#include "whatif/what_if.h"

#include <algorithm>
#include <unordered_map>

#include "segmentation/call_tokens.h"

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

// The host time of one kernel launch's call as this program's launches take
// it (their median): what each CUDA call a fix adds costs the host, the
// launch that decides on the GPU in place of a read-back (compute-on-gpu:
// `spikes += loss > x`), a side stream's event record and wait.
uint64_t median_launch_call_ns(const Program& program) {
  std::vector<uint64_t> calls;
  for (const Op& op : program.ops) {
    if (op.kind == OpKind::kEnqueue && op.call_ns > 0) calls.push_back(op.call_ns);
  }
  return segmentation::median(std::move(calls));
}

// The recorder's stack capture before an op's call (Op::recorder_ns), as
// much of it as lies in the host work before the call.
uint64_t recorder_share_ns(const Op& op) { return std::min(op.recorder_ns, op.host_before_ns); }

// What one Python operation costs the host (kSideStreamOperations): the
// host work before the program's launches, the recorder's capture left
// out, their median. Not the moved copies' own: a copy made once a step
// follows the loop's top and the optimizer's return (about 100 µs on an
// H100 for copies_on_compute_stream.py, three times what its side stream's
// operations cost), and a batch's first copy follows the DataLoader's work.
// The program merges the threads that feed the GPU (autograd's backward,
// whose launches follow each other closely, among them): where those
// dominate, the figure is low, and the saving stays a ceiling all the same.
uint64_t operation_dispatch_ns(const Program& program) {
  std::vector<uint64_t> dispatches;
  for (const Op& op : program.ops) {
    if (op.kind == OpKind::kEnqueue) dispatches.push_back(op.host_before_ns - recorder_share_ns(op));
  }
  return segmentation::median(std::move(dispatches));
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
    case Fix::kDropStatement:
      return "drop-statement";
    case Fix::kComputeOnGpu:
      return "compute-on-gpu";
    case Fix::kFixedShape:
      return "fixed-shape";
    case Fix::kDropReadBack:
      return "drop-read-back";
  }
  return "?";
}

std::optional<Fix> fix_from_name(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(Fix::kDropReadBack); ++i) {
    const Fix fix = static_cast<Fix>(i);
    if (name == fix_name(fix)) return fix;
  }
  return std::nullopt;
}

StatementPart statement_part(Fix fix) {
  if (fix == Fix::kEveryNSteps || fix == Fix::kDropStatement) return StatementPart::kWhole;
  if (fix == Fix::kFixedShape) return StatementPart::kFromItsReadBack;
  return StatementPart::kNone;
}

bool removes_work_between_its_calls(Fix fix) {
  return statement_part(fix) != StatementPart::kNone || fix == Fix::kComputeOnGpu || fix == Fix::kDropReadBack;
}

bool saving_is_a_floor(Fix fix) {
  return fix == Fix::kDropCall || fix == Fix::kDropReadBack || statement_part(fix) != StatementPart::kNone;
}

bool saving_is_a_ceiling(Fix fix) { return fix == Fix::kSideStream; }

std::vector<uint64_t> work_between_statement_calls(const Program& program, const std::vector<SiteFix>& fixes,
                                                   const std::vector<uint32_t>& site_of_op) {
  std::vector<uint64_t> out(program.ops.size(), 0);
  for (size_t i = 1; i < program.ops.size() && i < site_of_op.size(); ++i) {
    const uint32_t site = site_of_op[i];
    if (site == 0 || site_of_op[i - 1] != site) continue;
    for (const SiteFix& f : fixes) {
      if (f.site == site && removes_work_between_its_calls(f.fix)) out[i] = program.ops[i].host_before_ns;
    }
  }
  return out;
}

Program apply_fixes(const Program& program, const std::vector<SiteFix>& fixes, const OpMarks* marks) {
  std::unordered_map<uint32_t, SiteFix> fix_of;
  for (const SiteFix& f : fixes) fix_of[f.site] = f;
  std::vector<uint32_t> site_of_op;
  if (marks != nullptr) {
    site_of_op = marks->site;
  } else {
    for (const Op& op : program.ops) site_of_op.push_back(op.site);
  }
  site_of_op.resize(program.ops.size(), 0);
  const std::vector<uint64_t> statement_host_ns = marks != nullptr && !marks->statement_host_ns.empty()
                                                      ? marks->statement_host_ns
                                                      : work_between_statement_calls(program, fixes, site_of_op);
  Program out = program;
  out.ops.clear();
  out.ops.reserve(program.ops.size());
  uint64_t carried = 0;  // host work before a removed op, kept for the next one
  uint64_t side_events = 0;
  const bool adds_calls = std::any_of(fixes.begin(), fixes.end(), [](const SiteFix& f) {
    return f.fix == Fix::kComputeOnGpu || f.fix == Fix::kSideStream;
  });
  const bool moves_copies =
      std::any_of(fixes.begin(), fixes.end(), [](const SiteFix& f) { return f.fix == Fix::kSideStream; });
  const bool drops_operations =
      std::any_of(fixes.begin(), fixes.end(), [](const SiteFix& f) { return f.drops_operations > 0; });
  const bool costs_operations = moves_copies || drops_operations;
  const uint64_t added_call_ns = adds_calls || drops_operations ? median_launch_call_ns(program) : 0;
  const uint64_t dispatch = costs_operations ? operation_dispatch_ns(program) : 0;
  // The host work of operations a setting drops besides its site's calls
  // (SiteFix::drops_operations), not yet taken off the ops after the site.
  uint64_t dropped_work = 0;
  for (size_t i = 0; i < program.ops.size(); ++i) {
    Op op = program.ops[i];
    op.site = site_of_op[i];
    // The recorder's stack capture before the call stays whatever the fix:
    // carried to the next op kept, which may be this one.
    const uint64_t recorder = recorder_share_ns(op);
    op.host_before_ns -= recorder;
    op.recorder_ns = 0;
    carried += recorder;
    // An every-n-steps statement's own host work goes with it: between its
    // calls, and with line events before its first and after its last (a
    // fixed-shape statement's, from its read-back on).
    if (i < statement_host_ns.size()) op.host_before_ns -= std::min(op.host_before_ns, statement_host_ns[i]);
    auto it = op.site != 0 ? fix_of.find(op.site) : fix_of.end();
    if (it != fix_of.end() && statement_part(it->second.fix) != StatementPart::kNone) {
      // What came before the statement stays, carried to the next op kept
      // when its first call goes (a sync).
      const uint64_t before = op.host_before_ns + carried;
      if (!keeps_its_gpu_work_queued(op.kind)) {
        carried = before;
        continue;
      }
      // What it queued stays queued, at no host time: the statement's GPU
      // work is small (print's formatting kernels, a 4-byte copy), and from
      // host timing alone the estimate may give a read-back's copy all the
      // GPU time its sync waited for (gpu_estimate.h). A fixed-shape
      // statement's gather stands for the kernel that replaces it.
      op.host_before_ns = before;
      carried = 0;
      op.call_ns = op.waited_ns = op.after_ns = 0;
      op.works_besides_waiting = false;
      if (op.kind == OpKind::kBlockingCopy) op.kind = OpKind::kEnqueue;
      out.ops.push_back(op);
      continue;
    }
    op.host_before_ns += carried;
    carried = 0;
    if (it == fix_of.end()) {
      const uint64_t taken = std::min(op.host_before_ns, dropped_work);
      op.host_before_ns -= taken;
      dropped_work -= taken;
      out.ops.push_back(op);
      continue;
    }
    switch (it->second.fix) {
      case Fix::kEveryNSteps:
      case Fix::kDropStatement:
      case Fix::kFixedShape:
        break;  // handled above
      case Fix::kReadLater:
      case Fix::kDropSync:
      case Fix::kPinnedAsync:
        if (is_host_wait(op.kind)) {
          carried = op.host_before_ns;  // the call is gone, the work around it is not
          continue;
        }
        if (op.kind == OpKind::kBlockingCopy) {
          // Queued from pinned memory, pinned off the training thread
          // (DataLoader's pin-memory thread, a buffer pinned once, a
          // read-back's pinned target) as the hints say: the staging copy
          // through the driver's pinned buffer goes with the wait, and the
          // copy costs the host a call's own time. Pinning on the training
          // thread would copy the data there instead (docs/what-if.md).
          op.kind = OpKind::kEnqueue;
          op.waited_ns = op.after_ns = 0;
          op.works_besides_waiting = false;
        }
        out.ops.push_back(op);
        break;
      case Fix::kComputeOnGpu:  // the read-back's copy and waits go; the work between them went above
        if (i == 0 || site_of_op[i - 1] != op.site) {
          // In their place, once an execution, the launch that decides on
          // the GPU: a scalar's kernel, its GPU time next to none.
          Op decide;
          decide.kind = OpKind::kEnqueue;
          decide.stream = op.stream;
          decide.step = op.step;
          decide.host_before_ns = op.host_before_ns;
          decide.call_ns = added_call_ns;
          out.ops.push_back(decide);
          continue;
        }
        carried = op.host_before_ns;
        continue;
      case Fix::kDropReadBack:
        if (i == 0 || site_of_op[i - 1] != op.site) {
          // Once an execution, the setting's other operations: each what
          // one launching operation costs this program's host, its
          // dispatch and its launch call, taken off the host work of the
          // ops that follow (where they ran is not recorded).
          dropped_work += it->second.drops_operations * (dispatch + added_call_ns);
        }
        carried = op.host_before_ns;
        continue;
      case Fix::kDropCall:
        carried = op.host_before_ns;
        continue;
      case Fix::kSideStream: {
        if (op.kind != OpKind::kEnqueue && op.kind != OpKind::kBlockingCopy) {
          out.ops.push_back(op);
          break;
        }
        // The Python work of the fix's operations (the stream switch,
        // wait_stream, record_stream), each at the program's operation
        // dispatch, all before the event's record: the copy is queued when
        // it was.
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
        record.call_ns = added_call_ns;
        Op wait = record;
        wait.kind = OpKind::kStreamWait;
        wait.stream = compute;
        record.host_before_ns = kSideStreamOperations * dispatch;
        out.ops.push_back(record);
        out.ops.push_back(wait);
        break;
      }
    }
  }
  return out;
}

}  // namespace syncscope::whatif
