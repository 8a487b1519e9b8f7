// A finding: one place in the program (a call site) where the host waits on
// the GPU or starves it, with the evidence. Produced by the detectors (pure
// functions of a trace), rendered by report/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "detectors/cause.h"
#include "segmentation/phases.h"

namespace syncscope {

enum class Category { kHiddenSync, kPageableCopy, kAllocatorChurn, kDefaultStream };

// Where a finding happened, for the pictures (report/perfetto_report.h,
// report/html_report.h): a timeline and per-step bars need the times and
// steps that the totals below sum up.
struct FindingStepCount {
  uint32_t step = 0;        // step of the finding's phase (0-based among its steady steps)
  uint32_t count = 0;       // occurrences in that step
  uint64_t blocked_ns = 0;  // host time they cost
};
struct FindingOccurrence {
  uint64_t start_ns = 0, end_ns = 0;  // the flagged call (the wait, for a read-back)
};
// Occurrences kept per finding: enough to mark each on a timeline of a
// short run, bounded so a site hit every step of a long one stays small.
inline constexpr size_t kMaxFindingOccurrences = 200;

const char* category_name(Category c);  // "hidden-sync", "pageable-copy", ...

struct Finding {
  Category category = Category::kHiddenSync;
  Phase phase = Phase::kSteady;
  std::string api;           // the API that cost the time, e.g. "cudaStreamSynchronize"
  std::string api_sequence;  // e.g. "cudaMemcpyAsync(D2H)+cudaStreamSynchronize"
  // Why, within the category (detectors/cause.h). Detectors always set it;
  // the default goes with the default category.
  Cause cause = Cause::kExplicit;
  uint32_t stack_id = 0;  // the call site (0: unknown)
  uint32_t tid = 0;
  uint64_t count = 0;
  double per_step = 0;  // count per training step (0 when steps are unknown)
  uint64_t host_blocked_ns = 0;
  double blocked_ns_per_step = 0;
  double step_share = 0;  // blocked time per step / step time (0..1), 0 when unknown
  uint64_t bytes = 0;
  std::string detail;   // one line of extra evidence
  std::string hint;     // what to do about it
  double severity = 0;  // host time lost per step relative to step time: the ranking key without a prediction
                        // (detectors/finding_rank.h)

  // Where in the program's structure it happens (segmentation/phases.h).
  int phase_index = -1;        // into Analysis::phases (the recurring phase it belongs to); -1: none
  uint64_t steps_with = 0;     // steps of that phase in which the site occurred
  uint64_t every_n_steps = 0;  // >1: it recurs every N steps (periodic logging, eval every N); 0/1: every step
  // Events made on a thread without Python frames (autograd's backward
  // threads, C++ workers) while a Python thread waited for them: that
  // thread's stack (e.g. the `loss.backward()` line) stands for the site.
  uint32_t waiter_stack_id = 0;  // 0: the event's own stack is the site
  uint32_t waiter_tid = 0;

  // From the GPU timeline (docs/gpu-timeline.md), when the trace has one.
  bool gpu_measured = false;              // the trace had GPU work: the figures below are measured
  uint64_t gpu_idle_ns = 0;               // GPU idle time charged to this site's calls (steady steps)
  double gpu_idle_ns_per_step = 0;        // per step of its phase (0 when steps are unknown)
  double gpu_idle_share = 0;              // gpu_idle_ns_per_step / step time
  uint64_t gpu_copy_ns = 0;               // GPU time of the site's copies
  uint64_t gpu_copy_overlap_ns = 0;       // of which kernels on other streams ran alongside
  double gpu_serialized_ns_per_step = 0;  // default-stream: copy time not overlapped, per step

  // What fixing it is predicted to save, by replaying its phase's steady
  // steps without it (issue 27, docs/what-if.md). Set by the analysis's
  // entry point for steady findings (of a trace read in windows: the
  // step-weighted mean of its first windows', windowed_predictions.h); from the GPU
  // timeline (`prediction_measured`, one figure: low == high) or from host
  // timing alone (an interval). Merging findings copies these together
  // (detectors/finding_merge.cpp, copy_prediction): a new one goes there too.
  bool predicted = false;
  bool prediction_measured = false;
  std::string predicted_fix;  // the fix replayed: "read-later", "pinned-async", ... (whatif/what_if.h)
  // The operations the fix's setting drops besides the site's calls, which
  // the replay counted (whatif::SiteFix::drops_operations); 0: none.
  uint32_t predicted_dropped_operations = 0;
  bool prediction_floor = false;    // the fix saves at least this (whatif::saving_is_a_floor)
  bool prediction_ceiling = false;  // the fix saves at most this (whatif::saving_is_a_ceiling); never both
  double saving_ns_per_step_low = 0, saving_ns_per_step_high = 0;
  double step_ns_without_low = 0, step_ns_without_high = 0;
  double replayed_step_ns = 0;  // its phase's steps replayed as recorded (the model's error against the recording)
  // What the saving is a share of: the replay's recorded step (whatif::recorded_step_ns: with a full GPU
  // timeline, steps end when their GPU work is done), else its phase's mean step (PhaseInfo::step_ns).
  double prediction_step_ns = 0;

  // Steady findings: per step of its phase it occurred in, ascending (empty otherwise).
  std::vector<FindingStepCount> step_counts;
  // Its first kMaxFindingOccurrences occurrences, by time (every phase).
  std::vector<FindingOccurrence> occurrences;
};

}  // namespace syncscope
