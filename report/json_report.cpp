#include "report/json_report.h"

#include <cstdlib>

#include "policy/category_list.h"
#include "trace/api.h"
#include "trace/process_info_keys.h"

namespace syncscope {
namespace {

nlohmann::json frame_json(const Frame& f) { return {{"module", f.module}, {"symbol", f.symbol}, {"offset", f.offset}}; }

nlohmann::json python_json(const std::vector<PythonSiteFrame>& frames) {
  nlohmann::json out = nlohmann::json::array();
  for (const PythonSiteFrame& frame : frames) {
    out.push_back({{"file", frame.file}, {"line", frame.line}, {"function", frame.function}});
  }
  return out;
}

nlohmann::json user_frame_json(const UserFrame& u) {
  return {{"file", u.file},
          {"line", u.line ? nlohmann::json(u.line) : nlohmann::json(nullptr)},
          {"function", u.function},
          {"source", u.source.empty() ? nlohmann::json(nullptr) : nlohmann::json(u.source)},
          {"language", u.python ? "python" : "native"}};
}

nlohmann::json number_or_null(bool present, double value) {
  return present ? nlohmann::json(value) : nlohmann::json(nullptr);
}

// A phase's GPU figures (docs/findings-schema.md, GPU), null without a timeline.
nlohmann::json gpu_json(const Analysis& analysis, size_t phase) {
  const GpuPhaseFigures* g = analysis.gpu_for_phase(phase);
  if (g == nullptr) return nullptr;
  nlohmann::json by_cause = nlohmann::json::object();
  nlohmann::json share_by_cause = nlohmann::json::object();
  for (size_t c = 0; c < kGpuIdleCauses; ++c) {
    const GpuIdleCause cause = static_cast<GpuIdleCause>(c);
    by_cause[gpu_idle_cause_name(cause)] = g->per_step(g->idle_by_cause[c]) / 1e3;
    share_by_cause[gpu_idle_cause_name(cause)] = g->share(cause);
  }
  const double span = static_cast<double>(g->span_ns);
  return {{"phase", phase < analysis.phases.size() ? analysis.phases[phase].name : ""},
          {"steps", g->steps},
          {"untimed_steps", g->untimed_steps},
          {"busy_share", g->busy_share()},
          {"idle_share", span > 0 ? static_cast<double>(g->idle_ns) / span : 0.0},
          {"busy_us_per_step", g->per_step(g->busy_ns) / 1e3},
          {"idle_us_per_step", g->per_step(g->idle_ns) / 1e3},
          {"idle_us_per_step_by_cause", by_cause},
          {"idle_share_by_cause", share_by_cause},
          {"launch_bound", g->launch_bound}};
}

std::string thread_name(const ProcessTrace& trace, uint32_t tid) {
  auto thread = trace.thread_names.find(tid);
  return thread != trace.thread_names.end() ? thread->second : "";
}

nlohmann::json finding_json(const ProcessReport& p, const ReportedFinding& r, const ReportPolicy& policy) {
  const ProcessTrace& trace = *p.trace;
  const Finding& f = r.finding;
  const SiteFrames& site = r.site;
  nlohmann::json native = nlohmann::json::array();
  for (const Frame& frame : site.native) native.push_back(frame_json(frame));
  nlohmann::json user = nullptr;
  if (site.has_user) {
    user = user_frame_json(site.user);
    // "waiter": the line of the Python thread that waited for this event,
    // which ran on a thread without Python.
    user["attributed"] = site.user_from_waiter ? "waiter" : "site";
  }
  nlohmann::json sync = nullptr;
  if (site.has_sync) {
    sync = user_frame_json(site.sync);
    sync["library"] = site.sync.library.empty() ? nlohmann::json(nullptr) : nlohmann::json(site.sync.library);
    sync["attributed"] = site.user_from_waiter ? "waiter" : "site";
  }
  nlohmann::json known = nullptr;
  if (r.known_site != nullptr) {
    nlohmann::json checked = nlohmann::json::object();
    for (const auto& [package, version] : r.known_site->checked) checked[package] = version;
    known = {
        {"id", r.known_site->id}, {"library", r.known_site->library}, {"fix", r.known_site->fix}, {"checked", checked}};
  }
  nlohmann::json waiter = nullptr;
  if (f.waiter_stack_id != 0 || f.waiter_tid != 0) {
    waiter = {
        {"tid", f.waiter_tid}, {"name", thread_name(trace, f.waiter_tid)}, {"python", python_json(site.waiter_python)}};
  }
  const PhaseInfo* phase = finding_phase(p, f);
  nlohmann::json suppressed = nullptr;
  if (r.suppressed_by >= 0) {
    const SuppressionRule& rule = policy.suppressions[r.suppressed_by];
    suppressed = {{"rule", rule.text}, {"source", rule.source}};
  }
  const bool copies = f.gpu_measured && f.gpu_copy_ns > 0;
  // What fixing it saves (docs/what-if.md): the midpoint, and the interval
  // (low == high when measured).
  const double saving = (f.saving_ns_per_step_low + f.saving_ns_per_step_high) / 2;
  const double without = (f.step_ns_without_low + f.step_ns_without_high) / 2;
  nlohmann::json saving_range = nullptr;
  if (f.predicted) saving_range = {f.saving_ns_per_step_low / 1e3, f.saving_ns_per_step_high / 1e3};
  return {
      {"predicted_saving_us_per_step", number_or_null(f.predicted, saving / 1e3)},
      {"predicted_saving_us_per_step_range", saving_range},
      {"predicted_step_us_without", number_or_null(f.predicted, without / 1e3)},
      {"prediction_basis",
       f.predicted ? nlohmann::json(f.prediction_measured ? "measured" : "host-bound") : nlohmann::json(nullptr)},
      {"predicted_fix", f.predicted ? nlohmann::json(f.predicted_fix) : nlohmann::json(nullptr)},
      {"predicted_dropped_operations",
       f.predicted ? nlohmann::json(f.predicted_dropped_operations) : nlohmann::json(nullptr)},
      {"predicted_saving_is_floor", f.predicted ? nlohmann::json(f.prediction_floor) : nlohmann::json(nullptr)},
      {"predicted_saving_is_ceiling", f.predicted ? nlohmann::json(f.prediction_ceiling) : nlohmann::json(nullptr)},
      {"gpu_idle_us", number_or_null(f.gpu_measured, static_cast<double>(f.gpu_idle_ns) / 1e3)},
      {"gpu_idle_us_per_step", number_or_null(f.gpu_measured, f.gpu_idle_ns_per_step / 1e3)},
      {"gpu_idle_share", number_or_null(f.gpu_measured, f.gpu_idle_share)},
      {"gpu_copy_us", number_or_null(copies, static_cast<double>(f.gpu_copy_ns) / 1e3)},
      {"gpu_overlap_share",
       number_or_null(copies,
                      copies ? static_cast<double>(f.gpu_copy_overlap_ns) / static_cast<double>(f.gpu_copy_ns) : 0)},
      {"gpu_serialized_us_per_step", number_or_null(copies, f.gpu_serialized_ns_per_step / 1e3)},
      {"category", category_name(f.category)},
      {"phase", phase_name(f.phase)},
      {"phase_name", phase ? nlohmann::json(phase->name) : nlohmann::json(nullptr)},
      {"steps_with", f.steps_with},
      {"every_n_steps", f.every_n_steps},
      {"api", f.api},
      {"api_sequence", f.api_sequence},
      {"cause", cause_name(f.cause)},
      {"operation", operation_name(r.operation)},
      {"known_site", known},
      {"merged", r.merged},
      {"minor", r.minor},
      {"count", f.count},
      {"per_step", f.per_step},
      {"host_blocked_us", static_cast<double>(f.host_blocked_ns) / 1e3},
      {"host_blocked_us_per_step", f.blocked_ns_per_step / 1e3},
      {"step_share", f.step_share},
      {"bytes", f.bytes},
      {"severity", f.severity},
      {"thread", {{"tid", f.tid}, {"name", thread_name(trace, f.tid)}}},
      {"site", {{"python", python_json(site.python)}, {"native", native}}},
      {"sync_frame", sync},
      {"user_frame", user},
      {"waiter", waiter},
      {"fingerprint", r.fingerprint},
      {"suppressed", suppressed},
      {"in_baseline", r.known},
      {"counted", r.counted},
      {"saving_gate",
       r.saving == SavingCheck::kNotGated ? nlohmann::json(nullptr) : nlohmann::json(saving_check_name(r.saving))},
      {"hint", f.hint},
      {"detail", f.detail},
  };
}

// --fail-on-saving's verdict: null when the option was not given.
nlohmann::json saving_verdict_json(const ProcessReport& p, const ReportPolicy& policy) {
  if (!policy.gate.fail_on_saving) return nullptr;
  return {{"threshold", saving_threshold_text(*policy.gate.fail_on_saving)},
          {"over", p.savings_over},
          {"not_judged", p.savings_not_judged}};
}

nlohmann::json verdicts_json(const ProcessReport& p) {
  nlohmann::json out = nlohmann::json::array();
  for (const CategoryVerdict& v : p.verdicts) {
    if (!v.gated) continue;
    out.push_back({{"category", category_name(v.category)},
                   {"budget", budget_limit_text(v.budget)},
                   {"events", v.tally.events},
                   {"findings", v.tally.findings},
                   {"observed", v.observed},
                   {"steps_unknown", v.steps_unknown},
                   {"failed", v.failed},
                   {"reason", v.reason}});
  }
  return out;
}

// Every steady finding of phase `index` fixed (docs/what-if.md), or null.
nlohmann::json all_fixed_json(const Analysis& analysis, size_t index) {
  for (const AllFixedPrediction& a : analysis.all_fixed) {
    if (a.phase_index != static_cast<int>(index)) continue;
    return {{"fits", a.fits},
            {"prediction_basis", a.measured ? "measured" : "host-bound"},
            {"predicted_saving_is_floor", a.floor},
            {"predicted_saving_is_ceiling", a.ceiling},
            {"recorded_step_us", a.recorded_step_ns / 1e3},
            {"replayed_step_us", a.replayed_step_ns / 1e3},
            {"predicted_saving_us_per_step", (a.saving_ns_low + a.saving_ns_high) / 2e3},
            {"predicted_saving_us_per_step_range", {a.saving_ns_low / 1e3, a.saving_ns_high / 1e3}},
            {"predicted_step_us_without", (a.step_ns_without_low + a.step_ns_without_high) / 2e3},
            {"predicted_step_us_without_range", {a.step_ns_without_low / 1e3, a.step_ns_without_high / 1e3}}};
  }
  return nullptr;
}

nlohmann::json phases_json(const ProcessReport& p) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < p.analysis.phases.size(); ++i) {
    const PhaseInfo& phase = p.analysis.phases[i];
    const UserFrame* marker = phase_marker(p, i);
    out.push_back(
        {{"name", phase.name},
         {"source", step_source_name(phase.source)},
         {"steps", phase.steps},
         {"calls_per_step", phase.calls_per_step},
         {"step_time_us", phase.step_ns / 1e3},
         {"gpu_paced_step_time_us", number_or_null(phase.gpu_paced_step_ns > 0, phase.gpu_paced_step_ns / 1e3)},
         {"interrupted_steps", phase.interrupted_steps},
         {"gpu", gpu_json(p.analysis, i)},
         {"all_fixed", all_fixed_json(p.analysis, i)},
         {"marker", marker ? user_frame_json(*marker) : nlohmann::json(nullptr)}});
  }
  return out;
}

nlohmann::json process_json(const ProcessReport& p, const ReportPolicy& policy) {
  const ProcessTrace& trace = *p.trace;
  const Analysis& analysis = p.analysis;
  nlohmann::json api_counts = nlohmann::json::object();
  for (const ApiStats& a : p.summary.apis) api_counts[std::string(api_name(a.api))] = a.calls;
  nlohmann::json findings = nlohmann::json::array();
  for (const ReportedFinding& f : p.findings) findings.push_back(finding_json(p, f, policy));
  nlohmann::json out = {
      {"pid", trace.header.pid},
      {"ppid", trace.header.ppid},
      {"argv", trace.info(info_key::kArgv)},
      {"cuda_runtime", trace.info(info_key::kCudaRuntime)},
      {"trace_file", trace.file},
      {"complete", trace.complete},
      {"truncation", trace.truncation},
      {"events", p.summary.events},
      {"launches", p.summary.launches},
      {"dropped_events", p.summary.events_dropped},
      {"dropped_events_at_exit", trace.events_unwritten_at_exit},
      {"dropped_events_no_memory", trace.events_lost_no_memory},
      {"dropped_events_over_size_limit", trace.events_over_size_limit},
      // Launches written as runs (docs/trace-format.md, kLaunchRuns): their
      // count and order are exact, their individual times spread.
      {"aggregated_launches", trace.aggregated_launches},
      {"read_in_windows", p.windows},
      {"trace_detail", trace.info("trace.detail")},
      {"wall_us", static_cast<double>(p.summary.wall_ns) / 1e3},
      {"steps",
       {{"detected", analysis.steps.detected},
        {"count", analysis.steps.steps},
        {"calls_per_step", analysis.steps.period_calls},
        {"step_time_us", analysis.steps.step_ns / 1e3},
        {"steady_start_ns", analysis.steps.steady_start_ns}}},
      {"phases", phases_json(p)},
      {"host_blocked_us_per_step", analysis.blocked_ns_per_step / 1e3},
      {"sync_calls_per_step", p.sync_events_per_step},
      {"gpu_timeline", analysis.gpu_timeline},
      {"gpu_timeline_state", trace.info(info_key::kGpuTimeline)},
      {"gpu", gpu_json(analysis, 0)},
      {"api_counts", api_counts},
      {"findings", findings},
      {"gate",
       {{"failed", p.gate_failed}, {"categories", verdicts_json(p)}, {"saving", saving_verdict_json(p, policy)}}},
  };
  if (!trace.info(info_key::kAttachMode).empty()) {
    nlohmann::json not_seen = nlohmann::json::array();
    for (const auto& [key, value] : trace.process_info) {
      if (info_key::is_attach_not_seen_key(key)) not_seen.push_back(value);
    }
    out["attach"] = {{"mode", trace.info(info_key::kAttachMode)},
                     {"redirected_slots", std::atoi(trace.info(info_key::kAttachRedirectedSlots).c_str())},
                     {"redirected_objects", trace.info(info_key::kAttachRedirectedObjects)},
                     {"not_seen", not_seen}};
  }
  if (!p.rank.empty()) out["rank"] = p.rank;
  if (!p.local_rank.empty()) out["local_rank"] = p.local_rank;
  if (!p.world_size.empty()) out["world_size"] = p.world_size;
  if (p.recorder_cost.known) {
    out["recorder_cost"] = {{"capture_ns", p.recorder_cost.capture_ns},
                            {"captures", p.recorder_cost.captures},
                            {"collector_cpu_ns", p.recorder_cost.collector_cpu_ns}};
  }
  return out;
}

nlohmann::json policy_json(const Report& report) {
  const ReportPolicy& policy = report.policy;
  nlohmann::json budgets = nlohmann::json::object();
  for (Category c : kAllCategories) {
    if (auto b = policy.gate.budget_for(c)) budgets[category_name(c)] = budget_limit_text(*b);
  }
  nlohmann::json rules = nlohmann::json::array();
  for (size_t i = 0; i < policy.suppressions.size(); ++i) {
    rules.push_back({{"rule", policy.suppressions[i].text},
                     {"source", policy.suppressions[i].source},
                     {"suppressed", report.suppression_hits[i]}});
  }
  return {{"gate",
           {{"enabled", policy.gate.enabled()},
            {"failed", report.gate_failed || report.gate_blind()},
            {"recording_incomplete", report.gate_blind()},
            {"budgets", budgets},
            {"fail_on_saving", policy.gate.fail_on_saving
                                   ? nlohmann::json(saving_threshold_text(*policy.gate.fail_on_saving))
                                   : nlohmann::json(nullptr)},
            {"include_warmup", policy.gate.include_warmup}}},
          {"suppressions", rules},
          {"suppressed", report.suppressed},
          {"baseline", policy.baseline ? nlohmann::json(policy.baseline->source) : nlohmann::json(nullptr)},
          {"in_baseline", report.known}};
}

nlohmann::json ranks_json(const Report& report) {
  nlohmann::json outliers = nlohmann::json::array();
  for (const auto& o : report.ranks.outliers) {
    const ProcessReport& p = report.processes[o.process];
    outliers.push_back({{"pid", p.trace->header.pid},
                        {"rank", p.rank.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.rank)},
                        {"reason", o.reason}});
  }
  return {{"compared", report.ranks.present},
          {"median_host_blocked_us_per_step", report.ranks.median_blocked_ns_per_step / 1e3},
          {"outliers", outliers}};
}

nlohmann::json recording_json(const RecordingStatus& recording) {
  nlohmann::json problems = nlohmann::json::array();
  for (const RecordingProblem& p : recording.problems) {
    problems.push_back({{"pid", p.pid != 0 ? nlohmann::json(p.pid) : nlohmann::json(nullptr)},
                        {"kind", p.kind},
                        {"detail", p.detail},
                        {"message", problem_message(p)}});
  }
  return {{"complete", recording.complete()}, {"problems", problems}};
}

}  // namespace

nlohmann::json findings_json(const Report& report) {
  nlohmann::json processes = nlohmann::json::array();
  for (const ProcessReport& p : report.processes) processes.push_back(process_json(p, report.policy));
  return {{"schema", kFindingsSchema},
          {"syncscope_version", SYNCSCOPE_VERSION},
          {"recording", recording_json(report.recording)},
          {"processes", processes},
          {"processes_without_cuda", report.without_cuda},
          {"processes_ended_unwritten", report.ended_unwritten},
          {"across_processes", ranks_json(report)},
          {"policy", policy_json(report)}};
}

}  // namespace syncscope
