#include "report/text_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "policy/category_list.h"
#include "policy/saving_gate.h"
#include "report/dropped_events_text.h"
#include "report/frame_folding.h"
#include "report/prediction_text.h"
#include "report/gpu_timeline_text.h"
#include "report/finding_text.h"
#include "report/outside_summary.h"
#include "report/site_text.h"
#include "trace/source_paths.h"
#include "report/text_finding.h"
#include "report/text_layout.h"
#include "report/units.h"
#include "trace/api.h"
#include "trace/environment.h"
#include "trace/process_info_keys.h"

namespace syncscope {
namespace {

std::string calls(uint64_t n) { return std::to_string(n) + (n == 1 ? " call" : " calls"); }

// Frames inside the preload itself are recording machinery, not the user's code.
bool is_own_frame(const Frame& f) { return f.module == "libsyncscope.so"; }

constexpr const char* kMinorPerStepText = "0.1";  // kMinorPerStep as the row says it
static_assert(kMinorPerStep == 0.1, "kMinorPerStepText says kMinorPerStep");

// Per phase, one row for its minor findings (ReportedFinding::minor): how
// many, what they cost together, and the first few lines.
void render_minor_rows(const ProcessReport& p, std::ostream& out) {
  struct Row {
    int findings = 0;
    uint64_t calls = 0;
    double share = 0;
    std::vector<std::string> where;
  };
  std::map<int, Row> rows;
  const std::string cwd = p.trace->info(info_key::kCwd);
  for (const ReportedFinding& f : p.findings) {
    if (!f.minor || f.suppressed_by >= 0) continue;
    Row& row = rows[f.finding.phase_index];
    ++row.findings;
    row.calls += f.finding.count;
    row.share += f.finding.step_share;
    const std::string where = sync_location(f.site, cwd);
    if (row.where.size() < 3 && std::find(row.where.begin(), row.where.end(), where) == row.where.end()) {
      row.where.push_back(where);
    }
  }
  for (const auto& [index, row] : rows) {
    const PhaseInfo* phase = index >= 0 && static_cast<size_t>(index) < p.analysis.phases.size()
                                 ? &p.analysis.phases[static_cast<size_t>(index)]
                                 : nullptr;
    std::string line = "minor" + (phase && p.analysis.phases.size() > 1 ? " [" + phase->name + "]" : std::string()) +
                       ": " + std::to_string(row.findings) + (row.findings == 1 ? " finding, " : " findings, ") +
                       std::to_string(row.calls) + (row.calls == 1 ? " call" : " calls") + ", each under " +
                       kMinorPerStepText + " per step, " + step_share_text(row.share) +
                       " of step time together, at ";
    for (size_t i = 0; i < row.where.size(); ++i) line += (i ? ", " : "") + row.where[i];
    if (static_cast<size_t>(row.findings) > row.where.size()) line += ", …";
    out << "\n   " << truncate_columns(line, kScreenColumns - 3) << "\n"
        << "      (--details lists them)\n";
  }
}

void render_findings(const ProcessReport& p, const Report& report, const TextReportOptions& options,
                     std::ostream& out) {
  int steady = 0, other = 0;
  std::map<Category, int> suppressed;
  for (const ReportedFinding& f : p.findings) {
    if (f.suppressed_by >= 0) {
      ++suppressed[f.finding.category];
      continue;
    }
    (f.finding.phase == Phase::kSteady ? steady : other)++;
  }
  if (steady == 0)
    out << "   no findings in steady state\n";
  else
    out << "   findings (steady state, worst first):\n";
  int rank = 0, minor = 0;
  for (const ReportedFinding& f : p.findings) {
    if (f.finding.phase != Phase::kSteady || f.suppressed_by >= 0) continue;
    if (f.minor && !options.details) {
      ++minor;
      continue;
    }
    if (rank == options.max_findings) break;
    if (rank > 0) out << "\n";  // a blank line between findings: each is its own block
    render_finding_block(p, f, ++rank, options, out);
  }
  if (minor > 0) render_minor_rows(p, out);
  if (steady > rank + minor) {
    steady -= minor;
    out << "   … " << steady - rank << " more steady " << (steady - rank == 1 ? "finding" : "findings")
        << " (--format json lists every finding)\n";
  }
  if (other > 0) {
    out << "\n   outside steady state (warm-up, teardown; lower severity):\n";
    render_outside_table(summarize_outside_steady(p), options.details ? -1 : options.outside_rows, out);
  }
  if (!suppressed.empty()) {
    out << "   suppressed:";
    bool first = true;
    for (const auto& [category, n] : suppressed) {
      out << (first ? " " : ", ") << n << " " << category_name(category);
      first = false;
    }
    out << " (rules listed at the end)\n";
  }
  if (report.policy.gate.enabled()) {
    std::string failures;
    for (const CategoryVerdict& v : p.verdicts) {
      if (v.failed) failures += std::string(failures.empty() ? "" : "; ") + category_name(v.category) + " " + v.reason;
    }
    if (p.savings_over > 0) {
      failures += std::string(failures.empty() ? "" : "; ") + std::to_string(p.savings_over) +
                  (p.savings_over == 1 ? " finding saves" : " findings save") + " more than " +
                  saving_threshold_text(*report.policy.gate.fail_on_saving) + " of a step (listed at the end)";
    }
    const char* red = options.color ? "\033[1;31m" : "";
    const char* reset = options.color ? "\033[0m" : "";
    if (failures.empty())
      out << "   gate: pass\n";
    else
      out << "   " << red << "gate: FAIL" << reset << " " << failures << "\n";
    if (p.savings_not_judged > 0) out << "   " << not_judged_text(p.savings_not_judged) << "\n";
  }
  out << "\n";
}

// How `syncscope attach` got in, and what it could not see from there.
void render_attach(const ProcessTrace& trace, std::ostream& out) {
  const std::string mode = trace.info(info_key::kAttachMode);
  if (mode.empty()) return;
  if (mode == info_key::kAttachModeDormant) {
    out << "   attached: a dormant recorder (syncscope run --dormant) recorded this stretch\n";
    return;
  }
  out << "   attached: recorder injected into the running process; " << trace.info(info_key::kAttachRedirectedSlots)
      << " import slots redirected";
  // The objects, most slots first: the first few say where the CUDA calls come from.
  const std::string objects = trace.info(info_key::kAttachRedirectedObjects);
  size_t shown = 0, cut = 0, total = objects.empty() ? 0 : 1;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (objects.compare(i, 2, ", ") != 0) continue;
    ++total;
    if (++shown == 4) cut = i;
  }
  if (!objects.empty()) {
    out << " in " << total << " object" << (total == 1 ? "" : "s") << ": "
        << (cut != 0 ? objects.substr(0, cut) + ", ..." : objects);
  }
  out << "\n";
  bool first = true;
  for (const auto& [key, value] : trace.process_info) {
    if (!info_key::is_attach_not_seen_key(key)) continue;
    if (first) out << "   not seen when attached after the fact:\n";
    first = false;
    out << "     - " << value << "\n";
  }
}

// "train: 118 steps (optimizer.step() at train.py:77), 31.2 ms each, 2 interrupted"
std::string phase_line(const ProcessReport& p, size_t index) {
  const PhaseInfo& phase = p.analysis.phases[index];
  std::string how;
  if (phase.source == StepSource::kOptimizerStep) {
    const UserFrame* marker = phase_marker(p, index);
    how = "optimizer.step()";
    if (marker && marker->python) {
      if (!marker->source.empty()) how = marker->source;
      how += " at " + display_source_path(marker->file, p.trace->info(info_key::kCwd)) + ":" +
             std::to_string(marker->line);
    }
  } else if (phase.source == StepSource::kNvtxRange) {
    how = "NVTX range \"" + phase.name + "\", " + calls(phase.calls_per_step);
  } else if (phase.source == StepSource::kBackward) {
    how = "one backward pass each, " + calls(phase.calls_per_step);
  } else {
    how = "a repeating pattern of " + calls(phase.calls_per_step);
  }
  std::string line = phase.name + ": " + std::to_string(phase.steps) + (phase.steps == 1 ? " step (" : " steps (") +
                     how + "), " + format_duration(static_cast<uint64_t>(phase.step_ns)) + " each";
  // "each" is a step's time from its start to the next step's, the mean
  // that shares of step time are of; steps of very different lengths (a
  // sync that waits milliseconds in some of them) add the median.
  if (phase.median_step_ns > 0 &&
      (phase.step_ns > 1.5 * phase.median_step_ns || phase.median_step_ns > 1.5 * phase.step_ns)) {
    line += " (median " + format_duration(static_cast<uint64_t>(phase.median_step_ns)) + ")";
  }
  // The host ran ahead of a GPU-bound loop: its steps are the GPU's
  // (detectors/gpu_pace.h), which shares of step time are not of.
  const std::string pace = gpu_pace_text(phase);
  if (!pace.empty()) line += ", " + pace;
  if (phase.interrupted_steps > 0) line += ", " + std::to_string(phase.interrupted_steps) + " interrupted";
  return line;
}

// How the text report says a cause: "in syncs", "launching", "in Python".
std::string idle_cause_words(GpuIdleCause cause, bool python) {
  switch (cause) {
    case GpuIdleCause::kSync:
      return "in syncs";
    case GpuIdleCause::kPageableCopy:
      return "in pageable copies";
    case GpuIdleCause::kFree:
      return "in device-wide frees";
    case GpuIdleCause::kLaunching:
      return "launching";
    case GpuIdleCause::kOtherCall:
      return "in other CUDA calls";
    case GpuIdleCause::kNoCall:
      break;
  }
  return python ? "in Python" : "outside CUDA calls";
}

// "GPU: 62% busy per train step; idle 38%: 21% in syncs, 12% launching, 5%
// in Python" for the main phase, "GPU in eval: ..." for the others.
void render_gpu_phase(const ProcessReport& p, size_t index, std::ostream& out) {
  const Analysis& analysis = p.analysis;
  const GpuPhaseFigures* g = analysis.gpu_for_phase(index);
  if (g == nullptr || index >= analysis.phases.size()) return;
  const bool python = !p.trace->python_code.empty();
  const auto causes = idle_causes_by_share(*g);
  const double idle = g->span_ns ? static_cast<double>(g->idle_ns) / static_cast<double>(g->span_ns) : 0;
  const std::string& name = analysis.phases[index].name;
  out << "   GPU" << (index == 0 ? "" : " in " + name) << ": ";
  if (g->steps == 0) {
    out << gpu_no_timed_step_text(*p.trace, analysis.phases[index]) << "\n";
    return;
  }
  const std::string sampled = gpu_sampled_steps_text(*p.trace, *g);
  out << format_percent(g->busy_share()) << " busy per " << name << " step"
      << (sampled.empty() ? "" : " (sampled: " + sampled + ")") << "; idle " << format_percent(idle);
  for (size_t i = 0; i < causes.size(); ++i) {
    out << (i == 0 ? ": " : ", ") << format_percent(causes[i].second) << " "
        << idle_cause_words(causes[i].first, python);
  }
  out << "\n";
  if (g->launch_bound) {
    out << "   " << (index == 0 ? "" : name + " ")
        << "launch-bound: the GPU mostly waits for the host to issue work (fewer, larger kernels: CUDA graphs, "
           "torch.compile)\n";
  }
}

// The GPU lines of every phase with figures, or why there are none when the
// timeline was asked for and could not be had.
void render_gpu_line(const ProcessReport& p, std::ostream& out) {
  const Analysis& analysis = p.analysis;
  const std::string timeline = p.trace->info(info_key::kGpuTimeline);
  if (!analysis.gpu_timeline && info_key::gpu_timeline_asked_for(timeline)) {
    // Asked for and not had: say why, once, where the GPU line would be.
    out << "   GPU: " << gpu_timeline_absence(*p.trace, false) << "; host timing only\n";
    return;
  }
  for (size_t i = 0; i < analysis.phases.size(); ++i) render_gpu_phase(p, i, out);
}

// What the main phase's step would be with every steady finding fixed.
void render_all_fixed(const ProcessReport& p, std::ostream& out) {
  for (const AllFixedPrediction& all : p.analysis.all_fixed) {
    if (all.phase_index == 0) out << "   " << all_fixed_text(all, measure_advice(*p.trace)) << "\n";
  }
}

// The paragraph over the findings: the phases and their steps (or the
// steps of the one repeating pattern), and the host time blocked per step.
void render_steps(const ProcessReport& p, std::ostream& out) {
  const Analysis& analysis = p.analysis;
  const std::string blocked = format_duration(static_cast<uint64_t>(analysis.blocked_ns_per_step));
  bool phases = false;
  for (size_t i = 0; i < analysis.phases.size(); ++i) {
    const PhaseInfo& phase = analysis.phases[i];
    if (phase.source == StepSource::kTime || phase.steps == 0) continue;  // said by the warm-up line below
    out << "   " << phase_line(p, i) << "\n";
    phases = true;
  }
  if (phases && analysis.steps.detected) {
    out << "   host blocked " << blocked << " per " << analysis.phases[0].name << " step\n";
    render_gpu_line(p, out);
    render_all_fixed(p, out);
  } else if (analysis.steps.detected) {
    out << "   steps: " << analysis.steps.steps << " steady steps of " << calls(analysis.steps.period_calls) << ", "
        << format_duration(static_cast<uint64_t>(analysis.steps.step_ns)) << " each; host blocked " << blocked
        << " per step\n";
    render_gpu_line(p, out);
  } else {
    out << "   steps: no repeating launch pattern; the first "
        << format_duration(analysis.steps.steady_start_ns - p.span.start_ns) << " count as warm-up\n";
  }
}

// What recording cost this process beyond the hooks' fixed path. A count of
// captures, not of stacks: an event made with the GIL released is captured
// twice (its native stack, then its Python frames when the GIL comes back).
void render_recorder_cost(const ProcessReport& p, std::ostream& out) {
  const RecorderCost& cost = p.recorder_cost;
  if (!cost.known) return;
  out << "   recorder: " << cost.captures << (cost.captures == 1 ? " capture" : " captures")
      << " of stacks and Python frames, "
      << format_duration(cost.capture_ns) << " of the program's time";
  if (cost.captures > 0) out << " (" << format_duration(cost.capture_ns / cost.captures) << " each)";
  out << "; its collector thread used " << format_duration(cost.collector_cpu_ns) << " of CPU\n\n";
}

void render_api_table(const ApiSummary& summary, std::ostream& out) {
  out << "   " << pad("API", 30) << lpad("calls", 9) << lpad("total", 12) << lpad("max", 12) << lpad("bytes", 12)
      << "  notes\n";
  for (const ApiStats& a : summary.apis) {
    std::string notes;
    for (const auto& [direction, n] : a.copies_by_direction) {
      notes +=
          std::string(notes.empty() ? "" : ", ") + std::string(direction_name(direction)) + " " + std::to_string(n);
    }
    for (const auto& [mem, n] : a.copies_by_host_mem) {
      if (mem == static_cast<uint8_t>(HostMem::kNone)) continue;
      notes += std::string(notes.empty() ? "" : ", ") + std::string(host_mem_name(mem)) + " " + std::to_string(n);
    }
    if (a.errors > 0) notes += std::string(notes.empty() ? "" : ", ") + std::to_string(a.errors) + " failed";
    out << "   " << pad(std::string(api_name(a.api)), 30) << lpad(std::to_string(a.calls), 9)
        << lpad(format_duration(a.total_ns), 12) << lpad(format_duration(a.max_ns), 12)
        << lpad(a.bytes ? format_bytes(a.bytes) : "-", 12) << "  " << notes << "\n";
  }
}

void render_top_stacks(const ProcessReport& p, const TextReportOptions& options, std::ostream& out) {
  const ProcessTrace& trace = *p.trace;
  if (p.summary.stacks.empty() || options.top_stacks <= 0) return;
  out << "\n   top call sites by host time:\n";
  Symbolizer& symbolizer = *p.symbolizer;
  int shown = 0;
  for (const StackStats& s : p.summary.stacks) {
    if (shown++ == options.top_stacks) break;
    std::string apis;
    for (uint16_t api : s.apis) apis += std::string(apis.empty() ? "" : "+") + std::string(api_name(api));
    out << "   #" << shown << " " << apis << ": " << calls(s.calls) << ", " << format_duration(s.total_ns) << "\n";
    auto it = trace.stacks.find(s.stack_id);
    if (it == trace.stacks.end()) {
      out << "        (stack not in trace)\n";
      continue;
    }
    std::vector<Frame> frames;
    for (size_t i = 0; i < it->second.size(); ++i) {
      Frame f = symbolizer.symbolize(it->second[i], i == 0);
      if (!is_own_frame(f)) frames.push_back(std::move(f));
    }
    for (const FoldedLine& line : fold_frames(frames, {options.full_frames, options.max_frames})) {
      out << "        " << line.text << "\n";
    }
  }
}

void render_process(const ProcessReport& p, const Report& report, const TextReportOptions& options, std::ostream& out) {
  const ProcessTrace& trace = *p.trace;
  const ApiSummary& summary = p.summary;
  std::string command = trace.info(info_key::kArgv);
  if (command.empty()) command = trace.info(info_key::kExe);
  out << "== process " << trace.header.pid << ": " << command << "\n";
  if (trace.info(info_key::kCudaRuntime) == info_key::kCudaRuntimeSimulated) {
    out << "   GPU: SIMULATED (fake CUDA runtime; no real GPU was used, timings are not real)\n";
  }
  std::string ranks;
  for (const char* key : {info_key::kRank, info_key::kLocalRank, info_key::kWorldSize}) {
    std::string value = trace.info(key);
    if (!value.empty()) ranks += std::string(ranks.empty() ? "" : " ") + key + "=" + value;
  }
  if (!ranks.empty()) out << "   " << ranks << "\n";
  render_attach(trace, out);
  out << "   " << summary.events << " CUDA calls (" << summary.launches << " launches) over "
      << format_duration(summary.wall_ns) << ", " << format_duration(summary.host_ns_in_cuda)
      << " of host time inside them\n";
  if (summary.events_dropped > 0) out << "   dropped events: " << dropped_events_text(trace) << "\n";
  if (const std::string limit = size_limit_text(trace); !limit.empty()) out << "   " << limit << "\n";
  if (trace.stacks_dropped > 0) out << "   stacks not kept: " << trace.stacks_dropped << " (stack table full)\n";
  if (!trace.complete) out << "   trace incomplete: " << trace.truncation << "\n";
  if (p.windows > 0) {
    out << "   read and analysed in " << p.windows
        << " windows, too long to hold whole (a window's edge may shift a step)\n";
  }
  if (!p.span.any) {  // every call was dropped: nothing more to say
    out << "\n";
    return;
  }
  render_steps(p, out);
  out << "\n";
  render_findings(p, report, options, out);
  // What a person changes is in the findings; the raw tables are for digging.
  if (!options.details) return;
  render_recorder_cost(p, out);
  render_api_table(summary, out);
  render_top_stacks(p, options, out);
  out << "\n";
}

void render_rank_table(const Report& report, std::ostream& out) {
  out << "== across processes: host blocked per step\n";
  out << "   " << pad("process", 28) << lpad("steps", 8) << lpad("step time", 12) << lpad("blocked/step", 14)
      << lpad("syncs/step", 12) << lpad("findings", 10) << "\n";
  for (size_t i = 0; i < report.processes.size(); ++i) {
    const ProcessReport& p = report.processes[i];
    const StepInfo& steps = p.analysis.steps;
    size_t findings = 0;
    for (const ReportedFinding& f : p.findings) findings += f.finding.phase == Phase::kSteady && f.suppressed_by < 0;
    char syncs[32];
    std::snprintf(syncs, sizeof(syncs), "%.2f", p.sync_events_per_step);
    bool outlier = false;
    for (const auto& o : report.ranks.outliers) outlier |= o.process == i;
    out << "   " << pad(p.label(), 28) << lpad(steps.detected ? std::to_string(steps.steps) : "-", 8)
        << lpad(steps.detected ? format_duration(static_cast<uint64_t>(steps.step_ns)) : "-", 12)
        << lpad(steps.detected ? format_duration(static_cast<uint64_t>(p.analysis.blocked_ns_per_step)) : "-", 14)
        << lpad(steps.detected ? syncs : "-", 12) << lpad(std::to_string(findings), 10)
        << (outlier ? "  <- stands out" : "") << "\n";
  }
  for (const auto& o : report.ranks.outliers) {
    out << "   " << report.processes[o.process].label() << " stands out: " << o.reason << "\n";
  }
  if (report.ranks.present && report.ranks.outliers.empty()) out << "   no process stands out\n";
  out << "\n";
}

void render_policy_summary(const Report& report, const TextReportOptions& options, std::ostream& out) {
  const ReportPolicy& policy = report.policy;
  if (!policy.suppressions.empty()) {
    out << "suppressions: " << report.suppressed << (report.suppressed == 1 ? " finding" : " findings")
        << " suppressed\n";
    for (size_t i = 0; i < policy.suppressions.size(); ++i) {
      out << "   " << lpad(std::to_string(report.suppression_hits[i]), 4) << "  " << policy.suppressions[i].text
          << "  (" << policy.suppressions[i].source << ")\n";
    }
  }
  if (policy.baseline) {
    out << "baseline " << policy.baseline->source << ": " << report.known
        << (report.known == 1 ? " finding" : " findings") << " already known, not counted\n";
  }
  if (policy.gate.enabled()) {
    const char* red = options.color ? "\033[1;31m" : "";
    const char* green = options.color ? "\033[1;32m" : "";
    const char* reset = options.color ? "\033[0m" : "";
    std::string gated;
    for (Category c : kAllCategories) {
      if (auto b = policy.gate.budget_for(c)) {
        gated += std::string(gated.empty() ? "" : ", ") + category_name(c) + "<=" + budget_limit_text(*b);
      }
    }
    if (policy.gate.fail_on_saving) {
      gated += std::string(gated.empty() ? "" : ", ") + "saving<=" + saving_threshold_text(*policy.gate.fail_on_saving);
    }
    if (!report.gate_failed && !report.gate_blind()) {
      out << green << "gate: pass" << reset << " (" << gated
          << (policy.gate.include_warmup ? ", all phases" : ", steady state") << ")\n";
    } else {
      out << red << "gate: FAIL" << reset << " (" << gated
          << (policy.gate.include_warmup ? ", all phases" : ", steady state") << ")\n";
      if (report.gate_blind()) {
        out << "   the recording is incomplete (see the top of the report): "
               "the gate cannot pass on what it could not see\n";
      }
      for (const ProcessReport& p : report.processes) {
        for (const CategoryVerdict& v : p.verdicts) {
          if (v.failed) out << "   " << p.label() << ": " << category_name(v.category) << " " << v.reason << "\n";
        }
        for (const ReportedFinding& f : p.findings) {
          if (f.saving != SavingCheck::kOver) continue;
          out << "   " << p.label() << ": " << category_name(f.finding.category) << " at " << finding_where(f) << " "
              << saving_over_reason(*policy.gate.fail_on_saving, f.finding) << "\n";
        }
      }
    }
    for (const ProcessReport& p : report.processes) {
      if (p.savings_not_judged > 0) out << "   " << p.label() << ": " << not_judged_text(p.savings_not_judged) << "\n";
    }
  }
}

// First thing in the report: findings below may be missing whole processes
// or stretches of the run, and nobody should read them as complete.
void render_recording_problems(const Report& report, const TextReportOptions& options, std::ostream& out) {
  if (report.recording.complete()) return;
  const char* red = options.color ? "\033[1;31m" : "";
  const char* reset = options.color ? "\033[0m" : "";
  out << red << "RECORDING INCOMPLETE" << reset << ": this report misses what could not be recorded\n";
  for (const RecordingProblem& p : report.recording.problems) out << "   " << problem_message(p) << "\n";
  out << "\n";
}

}  // namespace

void render_text_report(const Report& report, const TextReportOptions& options, std::ostream& out) {
  render_recording_problems(report, options, out);
  for (const ProcessReport& p : report.processes) render_process(p, report, options, out);
  if (report.processes.size() > 1) render_rank_table(report, out);
  if (report.without_cuda > 0) {
    out << report.without_cuda << (report.without_cuda == 1 ? " process" : " processes")
        << " without CUDA calls not shown\n";
  }
  if (report.ended_unwritten > 0) {
    out << report.ended_unwritten << (report.ended_unwritten == 1 ? " process" : " processes")
        << (report.ended_unwritten == 1 ? " ended before any of its" : " ended before any of their")
        << " calls were written (killed, or _exit/os._exit within "
        << "the first flush period, as worker processes end): not shown\n";
  }
  if (report.processes.empty()) {
    out << "no CUDA calls were recorded" << (report.recording.complete() ? "" : " (see RECORDING INCOMPLETE above)")
        << "\n";
  }
  render_policy_summary(report, options, out);
  if (!options.details && !report.processes.empty()) {
    out << "(--details adds the API table and top call sites; --full-frames every frame unelided)\n";
  }
}

}  // namespace syncscope
