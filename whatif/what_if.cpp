#include "whatif/what_if.h"

#include <algorithm>
#include <unordered_map>

namespace syncscope::whatif {
namespace {

// Side streams and their events get handles no recorded stream or event has
// (real handles are user-space addresses, below 2^47).
constexpr uint64_t kSideHandleBase = uint64_t{1} << 62;

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
  }
  return "?";
}

bool saving_is_a_floor(Fix fix) { return fix == Fix::kDropCall; }

Program apply_fixes(const Program& program, const std::vector<SiteFix>& fixes,
                    const std::vector<uint32_t>* site_of_op) {
  std::unordered_map<uint32_t, Fix> fix_of;
  for (const SiteFix& f : fixes) fix_of[f.site] = f.fix;
  Program out = program;
  out.ops.clear();
  out.ops.reserve(program.ops.size());
  uint64_t carried = 0;  // host work before a removed op, kept for the next one
  uint64_t side_events = 0;
  for (size_t i = 0; i < program.ops.size(); ++i) {
    Op op = program.ops[i];
    if (site_of_op != nullptr) op.site = i < site_of_op->size() ? (*site_of_op)[i] : 0;
    op.host_before_ns += carried;
    carried = 0;
    auto it = op.site != 0 ? fix_of.find(op.site) : fix_of.end();
    if (it == fix_of.end()) {
      out.ops.push_back(op);
      continue;
    }
    switch (it->second) {
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
