// Everything a report says, computed once and rendered by every format
// (text, json, sarif, junit, github, perfetto, html): per process the analysis, each
// finding with its symbolised site, whether a suppression rule or the
// baseline covers it and whether it counts against the gate; the gate's
// verdict per category; the comparison across ranks.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/trace_analysis.h"
#include "detectors/analysis.h"
#include "detectors/api_summary.h"
#include "policy/baseline.h"
#include "policy/gate.h"
#include "policy/saving_gate.h"
#include "trace/recorder_cost.h"
#include "policy/suppressions.h"
#include "trace/code_ownership.h"
#include "sites/known_sites.h"
#include "report/recording_problem.h"
#include "sites/site_frames.h"
#include "sites/sync_operation.h"
#include "sites/symbolizer.h"
#include "trace/reader.h"

namespace syncscope {

struct ReportPolicy {
  GatePolicy gate;
  std::vector<SuppressionRule> suppressions;
  std::optional<Baseline> baseline;
};

struct ReportOptions {
  StepOptions steps;
  ReportPolicy policy;
  CodeOwnershipOptions code;  // --user-code, --library-code
};

// A steady finding this small is "minor": well under once per step, a
// negligible share of the step, and not failing a gate. The text report
// folds a phase's minor findings into one row (--details lists them); every
// other format keeps them as they are, marked.
inline constexpr double kMinorPerStep = 0.1;
inline constexpr double kMinorStepShare = 0.005;

struct ReportedFinding {
  Finding finding;  // its hint: the known site's fix, else the operation's hint, else the detector's
  SiteFrames site;
  Operation operation = Operation::kUnknown;  // what made the call (sites/sync_operation.h)
  const KnownSite* known_site = nullptr;      // an entry of known_sites() the site matched
  uint32_t merged = 1;                        // findings of one sync line, operation and phase added up here
  bool minor = false;                         // kMinorPerStep / kMinorStepShare
  FindingIdentity identity;
  std::string fingerprint;
  int suppressed_by = -1;  // index into policy.suppressions, -1: not suppressed
  bool known = false;      // matched a finding of the baseline
  bool counted = false;    // counts against the gate (phase, not suppressed, not known)
  SavingCheck saving = SavingCheck::kNotGated;  // against --fail-on-saving (policy/saving_gate.h)
};

// What recording cost the program beyond the hooks' fixed path (trace
// process info recorder.*; absent in traces of older recorders).
struct ProcessReport {
  const ProcessTrace* trace = nullptr;
  std::shared_ptr<Symbolizer> symbolizer;  // shared so a ProcessReport can be copied
  ApiSummary summary;
  Analysis analysis;
  EventSpan span;                 // the first call's start to the latest end
  std::vector<uint32_t> threads;  // every thread that made a recorded call
  uint64_t windows = 0;           // windows of events the trace was read in (0: whole)
  std::vector<ReportedFinding> findings;     // in analysis order: steady first, worst first
  std::string rank, local_rank, world_size;  // from the environment; "" when absent
  RecorderCost recorder_cost;
  std::vector<CategoryVerdict> verdicts;     // one per category
  uint64_t savings_over = 0;                 // counted findings whose saving fails --fail-on-saving
  uint64_t savings_not_judged = 0;           // counted findings without a prediction under --fail-on-saving
  bool gate_failed = false;                  // a category's verdict or --fail-on-saving failed
  double sync_events_per_step = 0;  // steady hidden-sync calls per step, suppressed ones excluded
  // Per Analysis::phases: the user frame of the phase's step marker (the
  // optimizer.step() line), absent when the phase has none.
  std::vector<std::optional<UserFrame>> phase_markers;

  // "rank 1 (pid 4242)" or "pid 4242".
  std::string label() const;
};

struct RankComparison {
  bool present = false;  // two or more processes with steps
  double median_blocked_ns_per_step = 0;
  struct Outlier {
    size_t process = 0;  // index into Report::processes
    std::string reason;
  };
  std::vector<Outlier> outliers;
};

// Whether the traces hold everything the command did.
struct RecordingStatus {
  std::vector<RecordingProblem> problems;  // empty: complete
  bool complete() const { return problems.empty(); }
};

struct Report {
  std::vector<ProcessReport> processes;  // processes that used CUDA, by rank then pid
  size_t without_cuda = 0;               // processes recorded that never called CUDA
  // Processes whose trace holds no event and no end record: they called
  // CUDA (their trace was opened) and ended before a flush wrote any of it
  // (killed, or _exit/os._exit, as multiprocessing workers end).
  size_t ended_unwritten = 0;
  ReportPolicy policy;
  std::vector<uint64_t> suppression_hits;  // per rule: findings it suppressed
  uint64_t suppressed = 0;
  uint64_t known = 0;        // findings matched in the baseline
  bool gate_failed = false;  // findings exceed the gate's budgets
  RankComparison ranks;
  RecordingStatus recording;  // build_report lists dropped events; the caller adds what the launcher saw

  // A gate was set but the recording is incomplete: the gate cannot pass,
  // whatever the findings say (what was not recorded cannot be judged).
  bool gate_blind() const { return policy.gate.enabled() && !recording.complete(); }
};

// The report of traces analysed already (analysis/trace_analysis.h), which
// must outlive it: each finding's site, the policy's verdicts, the ranks.
Report build_report(const std::vector<AnalysedTrace>& traces, const ReportOptions& options);

// The user frame of phase `index`'s step marker, nullptr when it has none.
const UserFrame* phase_marker(const ProcessReport& process, size_t index);
// The phase a finding belongs to (Finding::phase_index), nullptr when none.
const PhaseInfo* finding_phase(const ProcessReport& process, const Finding& finding);

// The strings a suppression pattern is matched against (policy/suppressions.h).
std::vector<std::string> site_match_strings(const SiteFrames& site);

}  // namespace syncscope
