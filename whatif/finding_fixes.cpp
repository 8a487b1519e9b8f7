#include "whatif/finding_fixes.h"

namespace syncscope::whatif {

std::optional<Fix> fix_for(const Finding& finding, Operation operation, const KnownSite* known_site) {
  if (known_site != nullptr && !known_site->replay.empty()) {
    if (std::optional<Fix> fix = fix_from_name(known_site->replay)) return fix;
  }
  // A slice instead of a Python list as an index: the list's tensor, its
  // pageable copy and the wait all go, whichever finding names them.
  if (operation == Operation::kListIndex) return Fix::kDropStatement;
  switch (finding.cause) {
    case Cause::kReadBack:
      // `if loss > x:` becomes torch.where or a count kept on the GPU: the
      // line still runs, and nothing is read back (read-later would keep the
      // copy). x[mask] becomes torch.where or a multiply by the mask: nothing
      // is read back, and nonzero's own work goes too (a floor).
      if (operation == Operation::kBool) return Fix::kComputeOnGpu;
      if (operation == Operation::kNonzero) return Fix::kFixedShape;
      return Fix::kEveryNSteps;  // read (print, log) it every N steps: its statement leaves the step
    case Cause::kCopyThenSync:   // .to(device, non_blocking=True) from pinned memory
      return Fix::kReadLater;
    case Cause::kExplicit:
      return Fix::kDropSync;
    case Cause::kSyncCopy:
    case Cause::kSyncMemset:
    case Cause::kAsyncRequested:
    case Cause::kSynchronous:
      return Fix::kPinnedAsync;
    // A free's device-wide sync goes with the free: its hint says keep the
    // buffer (no empty_cache() in the loop), and the unmapping after the
    // sync, host work of its own, goes too (docs/what-if.md, "The fixes").
    case Cause::kImplicitFree:
    case Cause::kFreeBurst:
    case Cause::kGrowing:
    case Cause::kVmm:
    case Cause::kPinnedHost:
    case Cause::kChurn:
      return Fix::kDropCall;  // served from the caching allocator's pool instead
    case Cause::kCopyOnComputeStream:
    case Cause::kLegacyStream:
      return Fix::kSideStream;
  }
  return std::nullopt;
}

bool moves_loading_off_the_thread(Fix fix, Operation operation) {
  return fix == Fix::kPinnedAsync && operation == Operation::kCopyToDevicePageable;
}

}  // namespace syncscope::whatif
