// Why a finding happened, within its category: the `cause` of a finding
// (docs/findings-schema.md, "Causes", says when each is chosen). Detectors
// set it, hints and the report read it; cause_name() is the one mapping to
// the string the JSON report carries, which never changes (baselines and
// scripts match on it).
#pragma once

namespace syncscope {

enum class Cause {
  // hidden-sync
  kReadBack,      // a synchronize right after a device-to-host async copy
  kExplicit,      // any other synchronize
  kImplicitFree,  // cudaFree / cudaFreeHost synchronise the device
  kSyncCopy,      // a synchronous cudaMemcpy
  kSyncMemset,    // a synchronous cudaMemset
  // a synchronize right after an async host-to-device copy on that stream:
  // a blocking `.to(device)` (the runtime call is async, PyTorch waits)
  kCopyThenSync,
  // pageable-copy
  kAsyncRequested,  // asked to be asynchronous
  kSynchronous,     // a synchronous copy
  // allocator-churn
  kFreeBurst,  // many frees within 5 ms (empty_cache())
  kGrowing,    // allocation sizes growing at one site
  kVmm,        // driver virtual-memory calls (expandable segments)
  kPinnedHost,  // pinned host memory allocated or freed (cudaHostAlloc, cudaFreeHost)
  kChurn,      // any other allocation or free in steady state
  // default-stream
  kCopyOnComputeStream,  // H2D copies queued behind the kernels
  kLegacyStream,         // work on the legacy default stream
};

// "read-back", "explicit", ... as in the JSON report.
const char* cause_name(Cause cause);

}  // namespace syncscope
