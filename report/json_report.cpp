#include "report/json_report.h"

#include "detectors/api_summary.h"
#include "report/site_frames.h"
#include "trace/api.h"

namespace syncscope {
namespace {

nlohmann::json frame_json(const Frame& f) {
  return {{"module", f.module}, {"symbol", f.symbol}, {"offset", f.offset}};
}

nlohmann::json finding_json(const ProcessTrace& trace, const Finding& f, Symbolizer& symbolizer) {
  SiteFrames site = site_frames(trace, f.stack_id, symbolizer);
  nlohmann::json native = nlohmann::json::array();
  for (const Frame& frame : site.native) native.push_back(frame_json(frame));
  nlohmann::json python = nlohmann::json::array();
  for (const PythonSiteFrame& frame : site.python) {
    python.push_back({{"file", frame.file}, {"line", frame.line}, {"function", frame.function}});
  }
  nlohmann::json user = nullptr;
  if (site.has_user) {
    const UserFrame& u = site.user;
    user = {{"file", u.file},
            {"line", u.line ? nlohmann::json(u.line) : nlohmann::json(nullptr)},
            {"function", u.function},
            {"source", u.source.empty() ? nlohmann::json(nullptr) : nlohmann::json(u.source)},
            {"language", u.python ? "python" : "native"}};
  }
  auto thread = trace.thread_names.find(f.tid);
  return {
      {"category", category_name(f.category)},
      {"phase", phase_name(f.phase)},
      {"api", f.api},
      {"api_sequence", f.api_sequence},
      {"cause", f.cause},
      {"count", f.count},
      {"per_step", f.per_step},
      {"host_blocked_us", static_cast<double>(f.host_blocked_ns) / 1e3},
      {"host_blocked_us_per_step", f.blocked_ns_per_step / 1e3},
      {"step_share", f.step_share},
      {"bytes", f.bytes},
      {"severity", f.severity},
      {"thread", {{"tid", f.tid}, {"name", thread != trace.thread_names.end() ? thread->second : ""}}},
      {"site", {{"python", python}, {"native", native}}},
      {"user_frame", user},
      {"hint", f.hint},
      {"detail", f.detail},
  };
}

}  // namespace

nlohmann::json findings_json(const std::vector<ProcessTrace>& traces, const StepOptions& options) {
  nlohmann::json processes = nlohmann::json::array();
  size_t without_cuda = 0;
  for (const ProcessTrace& trace : traces) {
    if (trace.events.empty()) {
      ++without_cuda;
      continue;
    }
    Analysis analysis = analyze(trace, options);
    ApiSummary summary = summarize(trace);
    Symbolizer symbolizer(trace);
    nlohmann::json api_counts = nlohmann::json::object();
    for (const ApiStats& a : summary.apis) api_counts[std::string(api_name(a.api))] = a.calls;
    nlohmann::json findings = nlohmann::json::array();
    for (const Finding& f : analysis.findings) findings.push_back(finding_json(trace, f, symbolizer));
    nlohmann::json p = {
        {"pid", trace.header.pid},
        {"ppid", trace.header.ppid},
        {"argv", trace.info("argv")},
        {"cuda_runtime", trace.info("cuda_runtime")},
        {"trace_file", trace.file},
        {"complete", trace.complete},
        {"truncation", trace.truncation},
        {"events", summary.events},
        {"launches", summary.launches},
        {"dropped_events", summary.events_dropped},
        {"wall_us", static_cast<double>(summary.wall_ns) / 1e3},
        {"steps",
         {{"detected", analysis.steps.detected},
          {"count", analysis.steps.steps},
          {"calls_per_step", analysis.steps.period_calls},
          {"step_time_us", analysis.steps.step_ns / 1e3},
          {"steady_start_ns", analysis.steps.steady_start_ns}}},
        {"host_blocked_us_per_step", analysis.blocked_ns_per_step / 1e3},
        {"api_counts", api_counts},
        {"findings", findings},
    };
    for (const char* key : {"RANK", "LOCAL_RANK", "WORLD_SIZE"}) {
      std::string value = trace.info(key);
      if (!value.empty()) p[key == std::string("RANK") ? "rank" : key == std::string("LOCAL_RANK") ? "local_rank" : "world_size"] = value;
    }
    processes.push_back(std::move(p));
  }
  return {{"schema", kFindingsSchema},
          {"syncscope_version", SYNCSCOPE_VERSION},
          {"processes", processes},
          {"processes_without_cuda", without_cuda}};
}

}  // namespace syncscope
