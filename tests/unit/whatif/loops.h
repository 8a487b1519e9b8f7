// Synthetic training loops for the replay tests: the two loops of issue 27's
// table (GPU-bound and host-bound, each with a per-step read-back), built as
// the recorder would see them.
#pragma once

#include <cstdint>

#include "whatif/replay.h"

namespace syncscope::whatif::testing {

inline constexpr uint32_t kReadBackSite = 7;
inline constexpr uint64_t kUs = 1000;

// `steps` steps of: host work, `kernels` launches of `kernel_ns` each on the
// legacy stream, then (with read_back) a 4-byte device-to-host copy and its
// sync, as `.item()` makes them. The ops carry measured GPU times; their
// waited_ns are what replaying them gives, as a recording would have them.
inline Program training_loop(uint32_t steps, uint64_t host_ns, int kernels, uint64_t kernel_ns, bool read_back) {
  Program p;
  for (uint32_t s = 0; s < steps; ++s) {
    for (int k = 0; k < kernels; ++k) {
      Op launch;
      launch.kind = OpKind::kEnqueue;
      launch.host_before_ns = k == 0 ? host_ns : 2 * kUs;
      launch.call_ns = 5 * kUs;
      launch.gpu_ns = kernel_ns;
      launch.step = s;
      p.ops.push_back(launch);
    }
    if (read_back) {
      Op copy;
      copy.kind = OpKind::kEnqueue;  // cudaMemcpyAsync(D2H)...
      copy.host_before_ns = 1 * kUs;
      copy.call_ns = 4 * kUs;
      copy.gpu_ns = 2 * kUs;
      copy.step = s;
      copy.site = kReadBackSite;
      Op sync;  // ...then cudaStreamSynchronize
      sync.kind = OpKind::kStreamSync;
      sync.call_ns = 2 * kUs;
      sync.step = s;
      sync.site = kReadBackSite;
      p.ops.push_back(copy);
      p.ops.push_back(sync);
    }
  }
  Replay truth = replay(p);
  for (size_t i = 0; i < p.ops.size(); ++i) p.ops[i].waited_ns = truth.waited_ns[i];
  return p;
}

}  // namespace syncscope::whatif::testing
