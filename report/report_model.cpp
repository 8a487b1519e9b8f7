#include "report/report_model.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "detectors/finding.h"
#include "detectors/finding_merge.h"
#include "detectors/finding_rank.h"
#include "report/dropped_events_text.h"
#include "report/units.h"
#include "trace/process_info_keys.h"
#include "trace/recording_status.h"

namespace syncscope {
namespace {

long rank_number(const std::string& rank) {
  char* end = nullptr;
  long n = std::strtol(rank.c_str(), &end, 10);
  // Processes without a rank sort after the ranked ones.
  return rank.empty() || *end ? std::numeric_limits<long>::max() : n;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The site's identity for baselines and fingerprints: the line that syncs
// (in the user's own loop the user's line), so that findings at different
// library lines reached from one user line stay apart.
FindingIdentity site_identity(const Finding& f, const SiteFrames& site) {
  if (site.has_sync) {
    return make_identity(category_name(f.category), site.sync.file, site.sync.line, site.sync.function,
                         site.sync.source);
  }
  if (site.has_user) {
    return make_identity(category_name(f.category), site.user.file, site.user.line, site.user.function,
                         site.user.source);
  }
  return make_identity(category_name(f.category), "", 0, f.api_sequence, "");
}

// A one-off operation (sites/sync_operation.h) found inside a steady step
// (cuDNN timing a new shape's algorithms in the epoch's last, smaller
// batch) is warm-up work: listed with it, never per step, never gated.
void move_to_warmup(Finding* f) {
  f->phase = Phase::kWarmup;
  f->phase_index = -1;
  f->per_step = f->blocked_ns_per_step = f->step_share = 0;
  f->gpu_idle_ns_per_step = f->gpu_idle_share = f->gpu_serialized_ns_per_step = 0;
  f->steps_with = f->every_n_steps = 0;
  f->step_counts.clear();
  f->severity *= 0.1;  // as the aggregator ranks what is outside steady state
  f->predicted = false;  // a saving per step is a steady finding's
}

ReportedFinding report_finding(const ProcessTrace& trace, const Finding& f, Symbolizer& symbolizer,
                               const ReportOptions& options) {
  const ReportPolicy& policy = options.policy;
  ReportedFinding r;
  r.finding = f;
  r.site = finding_site_frames(trace, f, symbolizer, options.code);
  r.operation = classify_operation(f, r.site);
  r.known_site = match_known_site(known_sites(), r.site, r.operation, f.category);
  if (r.known_site != nullptr) {
    r.finding.hint = r.known_site->fix;
  } else if (std::string hint = operation_hint(r.operation, r.site.user_from_waiter); !hint.empty()) {
    r.finding.hint = std::move(hint);
  }
  if (is_one_off(r.operation) && r.finding.phase == Phase::kSteady) move_to_warmup(&r.finding);
  r.identity = site_identity(f, r.site);
  r.fingerprint = fingerprint(r.identity);
  r.suppressed_by = find_suppression(policy.suppressions, f.category, site_match_strings(r.site));
  r.known = policy.baseline && policy.baseline->contains(r.identity);
  r.counted = counts_against_gate(policy.gate, r.finding.phase, r.suppressed_by >= 0, r.known);
  return r;
}

// What findings merge on: category, phase, the line that syncs (else the
// user's Python line) and the operation. "" for a site without a Python
// line: its stack is all there is to tell it apart.
std::string merge_key(const ReportedFinding& r) {
  const SiteFrames& site = r.site;
  std::string where;
  if (site.has_sync) {
    where = site.sync.file + ":" + std::to_string(site.sync.line);
  } else if (site.has_user && site.user.python) {
    where = site.user.file + ":" + std::to_string(site.user.line);
  } else {
    return "";  // a native site has no line: its stack (two call sites of one function) is what it is
  }
  const Finding& f = r.finding;
  return std::string(category_name(f.category)) + "|" + phase_name(f.phase) + "|" + std::to_string(f.phase_index) +
         "|" + where + "|" + operation_name(r.operation);
}

// Findings of one sync line, operation and phase become one: different
// native stacks below one line (cuDNN's choices, autograd's thread) are one
// thing for the user to fix. The highest ranked keeps its site; the line's
// prediction is its part that saves most (merge_finding).
void merge_same_lines(const Analysis& analysis, std::vector<ReportedFinding>* findings) {
  std::vector<ReportedFinding> out;
  std::map<std::string, size_t> index_of;
  for (ReportedFinding& r : *findings) {
    const std::string key = merge_key(r);
    auto [it, added] = key.empty() ? std::make_pair(index_of.end(), true) : index_of.emplace(key, out.size());
    if (added) {
      out.push_back(std::move(r));
      continue;
    }
    ReportedFinding& into = out[it->second];
    const Finding& f = r.finding;
    const uint64_t steps = f.phase == Phase::kSteady && f.phase_index >= 0 &&
                                   static_cast<size_t>(f.phase_index) < analysis.phases.size()
                               ? analysis.phases[static_cast<size_t>(f.phase_index)].steps
                               : 0;
    merge_finding(into.finding, f, steps);
    into.merged += r.merged;
    // A suppressed or known part does not hide the rest.
    into.counted = into.counted || r.counted;
    if (into.finding.api_sequence.find(f.api_sequence) == std::string::npos) {
      into.finding.api_sequence += ", " + f.api_sequence;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const ReportedFinding& x, const ReportedFinding& y) {
    return ranks_before(x.finding, y.finding);
  });
  *findings = std::move(out);
}

bool is_minor(const ReportedFinding& r, const std::vector<CategoryVerdict>& verdicts) {
  const Finding& f = r.finding;
  if (r.saving == SavingCheck::kOver) return false;  // what fails the gate is shown
  if (f.phase != Phase::kSteady || f.per_step <= 0 || f.per_step >= kMinorPerStep) return false;
  if (std::max(f.step_share, f.gpu_idle_share) >= kMinorStepShare) return false;
  for (const CategoryVerdict& v : verdicts) {
    if (v.category == f.category && v.failed && r.counted) return false;  // what fails the gate is shown
  }
  return true;
}

ProcessReport report_process(const AnalysedTrace& analysed, const ReportOptions& options) {
  const ProcessTrace& trace = analysed.trace;
  ProcessReport p;
  p.trace = &trace;
  p.symbolizer = std::make_shared<Symbolizer>(trace);
  p.summary = analysed.summary;
  p.analysis = analysed.analysis;
  p.span = analysed.span;
  p.threads = analysed.threads;
  p.windows = analysed.windows;
  p.rank = trace.info(info_key::kRank);
  p.local_rank = trace.info(info_key::kLocalRank);
  p.world_size = trace.info(info_key::kWorldSize);
  p.recorder_cost = recorder_cost_of(trace);
  std::map<Category, CategoryTally> tallies;
  uint64_t steady_syncs = 0;
  std::vector<ReportedFinding> reported;
  for (const Finding& f : p.analysis.findings) {
    reported.push_back(report_finding(trace, f, *p.symbolizer, options));
    // Moved to warm-up (a one-off operation): its time is no step's.
    if (f.phase == Phase::kSteady && reported.back().finding.phase != Phase::kSteady && counts_as_blocked(f)) {
      p.analysis.blocked_ns_per_step = std::max(0.0, p.analysis.blocked_ns_per_step - f.blocked_ns_per_step);
    }
  }
  merge_same_lines(p.analysis, &reported);
  for (ReportedFinding& r : reported) {
    const Finding& f = r.finding;
    if (r.counted) {
      CategoryTally& t = tallies[f.category];
      t.events += f.count;
      t.findings += 1;
    }
    if (f.category == Category::kHiddenSync && f.phase == Phase::kSteady && r.suppressed_by < 0) {
      steady_syncs += f.count;
    }
    p.findings.push_back(std::move(r));
  }
  const uint64_t steady_steps = p.analysis.steps.detected ? p.analysis.steps.steps : 0;
  const uint64_t steps = gated_steps(options.policy.gate, steady_steps, p.analysis.steps.step_ns,
                                     p.span.any ? p.span.end_ns - p.span.start_ns : 0);
  for (const PhaseInfo& phase : p.analysis.phases) {
    std::optional<UserFrame> marker;
    if (phase.marker_stack_id != 0) {
      SiteFrames site = site_frames(trace, phase.marker_stack_id, *p.symbolizer, options.code);
      // The line that calls optimizer.step(): inside Trainer or Lightning
      // when the loop is theirs, the user's own line otherwise.
      if (site.has_sync) marker = site.sync;
      else if (site.has_user) marker = site.user;
    }
    p.phase_markers.push_back(std::move(marker));
  }
  p.verdicts = judge(options.policy.gate, tallies, steps);
  for (const CategoryVerdict& v : p.verdicts) p.gate_failed |= v.failed;
  for (ReportedFinding& r : p.findings) {
    r.saving = check_saving(options.policy.gate.fail_on_saving, r.finding, r.counted);
    p.savings_over += r.saving == SavingCheck::kOver;
    p.savings_not_judged += r.saving == SavingCheck::kNotPredicted;
  }
  p.gate_failed |= p.savings_over > 0;
  for (ReportedFinding& r : p.findings) r.minor = is_minor(r, p.verdicts);
  if (p.analysis.steps.detected && p.analysis.steps.steps > 0) {
    p.sync_events_per_step = static_cast<double>(steady_syncs) / static_cast<double>(p.analysis.steps.steps);
  }
  return p;
}

// A rank stands out when it is blocked clearly longer per step than the
// median of the other ranks, or syncs more often per step than they do.
RankComparison compare_ranks(const std::vector<ProcessReport>& processes) {
  RankComparison out;
  std::vector<size_t> with_steps;
  for (size_t i = 0; i < processes.size(); ++i) {
    if (processes[i].analysis.steps.detected) with_steps.push_back(i);
  }
  if (with_steps.size() < 2) return out;
  out.present = true;
  std::vector<double> all;
  for (size_t i : with_steps) all.push_back(processes[i].analysis.blocked_ns_per_step);
  out.median_blocked_ns_per_step = median(all);
  for (size_t i : with_steps) {
    std::vector<double> blocked, syncs;
    for (size_t j : with_steps) {
      if (j == i) continue;
      blocked.push_back(processes[j].analysis.blocked_ns_per_step);
      syncs.push_back(processes[j].sync_events_per_step);
    }
    double others_blocked = median(blocked), others_syncs = median(syncs);
    const ProcessReport& p = processes[i];
    std::string reason;
    if (p.sync_events_per_step > others_syncs + 0.5) {
      char buffer[128];
      std::snprintf(buffer, sizeof(buffer), "%.2f syncs per step, others %.2f", p.sync_events_per_step, others_syncs);
      reason = buffer;
    }
    // 1.5x and at least 20 µs more: small absolute differences are noise.
    if (p.analysis.blocked_ns_per_step > 1.5 * others_blocked &&
        p.analysis.blocked_ns_per_step - others_blocked > 20e3) {
      reason += std::string(reason.empty() ? "" : "; ") + "blocked " +
                format_duration(static_cast<uint64_t>(p.analysis.blocked_ns_per_step)) + " per step, others " +
                format_duration(static_cast<uint64_t>(others_blocked));
    }
    if (!reason.empty()) out.outliers.push_back({i, reason});
  }
  return out;
}

}  // namespace

std::string ProcessReport::label() const {
  std::string pid = "pid " + std::to_string(trace->header.pid);
  return rank.empty() ? pid : "rank " + rank + " (" + pid + ")";
}

const UserFrame* phase_marker(const ProcessReport& process, size_t index) {
  if (index >= process.phase_markers.size() || !process.phase_markers[index]) return nullptr;
  return &*process.phase_markers[index];
}

const PhaseInfo* finding_phase(const ProcessReport& process, const Finding& finding) {
  const std::vector<PhaseInfo>& phases = process.analysis.phases;
  if (finding.phase_index < 0 || static_cast<size_t>(finding.phase_index) >= phases.size()) return nullptr;
  return &phases[finding.phase_index];
}

std::vector<std::string> site_match_strings(const SiteFrames& site) {
  std::vector<std::string> out;
  if (site.has_user) {
    if (site.user.line) out.push_back(site.user.file + ":" + std::to_string(site.user.line));
    out.push_back(site.user.file);
    out.push_back(site.user.function);
  }
  for (const PythonSiteFrame& f : site.python) {
    out.push_back(f.file + ":" + std::to_string(f.line));
    out.push_back(f.function);
  }
  // A rule naming the line that waited (train.py:57) matches what it waited for.
  for (const PythonSiteFrame& f : site.waiter_python) {
    out.push_back(f.file + ":" + std::to_string(f.line));
    out.push_back(f.function);
  }
  for (const Frame& f : site.native) {
    out.push_back(f.symbol);
    out.push_back(f.module);
  }
  return out;
}

Report build_report(const std::vector<AnalysedTrace>& traces, const ReportOptions& options) {
  Report report;
  report.policy = options.policy;
  report.suppression_hits.assign(options.policy.suppressions.size(), 0);
  for (const AnalysedTrace& analysed : traces) {
    const ProcessTrace& trace = analysed.trace;
    if (trace.events_dropped > 0) {
      add_problem(&report.recording.problems,
                  {trace.header.pid, kStatusEventsDropped,
                   // The bare count when rings were full (trace/recording_status.h), else with the reasons.
                   trace.events_unwritten_at_exit + trace.events_lost_no_memory + trace.events_over_size_limit == 0
                       ? std::to_string(trace.events_dropped)
                       : dropped_events_text(trace)});
    }
    // A trace without its end record (the process was killed, left with
    // _exit/os._exit, or is still running) or cut inside a record is
    // missing its last calls: no gate can pass on it.
    if (!trace.complete) {
      add_problem(&report.recording.problems,
                  {trace.header.pid, kStatusTraceIncomplete,
                   trace.truncation.empty() ? std::string("no end record") : trace.truncation});
    }
    // A process whose every event was dropped did call CUDA: it is reported.
    if (!analysed.span.any && trace.events_dropped == 0) {
      ++(trace.complete ? report.without_cuda : report.ended_unwritten);
      continue;
    }
    report.processes.push_back(report_process(analysed, options));
  }
  std::stable_sort(report.processes.begin(), report.processes.end(),
                   [](const ProcessReport& a, const ProcessReport& b) {
                     long ra = rank_number(a.rank), rb = rank_number(b.rank);
                     if (ra != rb) return ra < rb;
                     return a.trace->header.pid < b.trace->header.pid;
                   });
  for (const ProcessReport& p : report.processes) {
    report.gate_failed |= p.gate_failed;
    for (const ReportedFinding& f : p.findings) {
      if (f.suppressed_by >= 0) {
        ++report.suppression_hits[f.suppressed_by];
        ++report.suppressed;
      }
      report.known += f.known;
    }
  }
  report.ranks = compare_ranks(report.processes);
  return report;
}

}  // namespace syncscope
