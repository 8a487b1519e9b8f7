// A finding: one place in the program (a call site) where the host waits on
// the GPU or starves it, with the evidence. Produced by the detectors (pure
// functions of a trace), rendered by report/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace syncscope {

enum class Category { kHiddenSync, kPageableCopy, kAllocatorChurn, kDefaultStream };
enum class Phase { kWarmup, kSteady, kTeardown };

const char* category_name(Category c);  // "hidden-sync", "pageable-copy", ...
const char* phase_name(Phase p);        // "warmup", "steady", "teardown"

struct Finding {
  Category category = Category::kHiddenSync;
  Phase phase = Phase::kSteady;
  std::string api;            // the API that cost the time, e.g. "cudaStreamSynchronize"
  std::string api_sequence;   // e.g. "cudaMemcpyAsync(D2H)+cudaStreamSynchronize"
  std::string cause;          // detector-specific cause key, e.g. "read-back", "explicit", "empty-cache"
  uint32_t stack_id = 0;      // the call site (0: unknown)
  uint32_t tid = 0;
  uint64_t count = 0;
  double per_step = 0;        // count per training step (0 when steps are unknown)
  uint64_t host_blocked_ns = 0;
  double blocked_ns_per_step = 0;
  double step_share = 0;      // blocked time per step / step time (0..1), 0 when unknown
  uint64_t bytes = 0;
  std::string detail;         // one line of extra evidence
  std::string hint;           // what to do about it
  double severity = 0;        // ranking key: host time lost per step relative to step time
};

}  // namespace syncscope
