#include "detectors/cause.h"

namespace syncscope {

const char* cause_name(Cause cause) {
  switch (cause) {
    case Cause::kReadBack:
      return "read-back";
    case Cause::kExplicit:
      return "explicit";
    case Cause::kImplicitFree:
      return "implicit-free";
    case Cause::kSyncCopy:
      return "sync-copy";
    case Cause::kSyncMemset:
      return "sync-memset";
    case Cause::kCopyThenSync:
      return "copy-then-sync";
    case Cause::kAsyncRequested:
      return "async-requested";
    case Cause::kSynchronous:
      return "synchronous";
    case Cause::kFreeBurst:
      return "free-burst";
    case Cause::kGrowing:
      return "growing";
    case Cause::kVmm:
      return "vmm";
    case Cause::kPinnedHost:
      return "pinned-host";
    case Cause::kChurn:
      return "churn";
    case Cause::kCopyOnComputeStream:
      return "copy-on-compute-stream";
    case Cause::kLegacyStream:
      return "legacy-stream";
  }
  return "unknown";
}

}  // namespace syncscope
