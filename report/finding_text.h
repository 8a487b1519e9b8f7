// How the CI formats (SARIF, JUnit, GitHub annotations) word and grade a
// finding, so that all three say the same thing.
#pragma once

#include <string>

#include "report/report_model.h"

namespace syncscope {

enum class FindingLevel { kError, kWarning, kNote };

// error: counted and its category failed the gate, or its saving failed
// --fail-on-saving; warning: counted (or, with
// no gate, a steady-state finding); note: known in the baseline, outside
// steady state, or suppressed.
FindingLevel finding_level(const ProcessReport& process, const ReportedFinding& finding);
const char* level_name(FindingLevel level);  // "error", "warning", "note"

// Whether a category fails a process's JUnit testcase: the gate's verdict
// (or a finding of it over --fail-on-saving) when a gate is set, else any
// counted finding.
bool category_fails(const Report& report, const ProcessReport& process, Category category);

// "train.py:42 in step" / "read_loss_value (hidden_sync_loop)" / "unknown site";
// a library's line that syncs, with the user's line that reached it:
// "transformers/trainer.py:1847 in _inner_training_loop (transformers),
// reached from train.py:20 in <module>".
std::string finding_where(const ReportedFinding& finding);
// How often per step: "1.00 per step", or for a site that recurs every N
// steps burst_text(); "" when steps are unknown.
std::string per_step_text(const Finding& finding);
// A site that recurs every N steps, by its bursts: "~513 calls every 500
// steps" (calls per step it occurred in); "" for any other site.
std::string burst_text(const Finding& finding);
// "host blocked per step (12% of step time)" figures: "12%", "<1%" for a
// share too small to round to 1% (rather than a misleading "0%").
std::string step_share_text(double share);
// From the GPU timeline, "" without one: "GPU idle per step 431 µs (6% of
// step time)", and for a default-stream copy "copies 0% overlapped with
// kernels on other streams, 310 µs serialised per step".
std::string gpu_cost_text(const Finding& finding);
// One line: "cudaMemcpyAsync(D2H)+cudaStreamSynchronize: 40 calls, 1.00 per
// step, 52.0 µs host blocked per step (12% of step time)", then the GPU cost
// when measured ("; GPU idle per step ...").
std::string finding_summary(const ReportedFinding& finding);

}  // namespace syncscope
