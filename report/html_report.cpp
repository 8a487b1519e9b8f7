#include "report/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/device_memory.h"
#include "report/dropped_events_text.h"
#include "report/gpu_timeline_text.h"
#include "report/html_charts.h"
#include "report/html_escape.h"
#include "report/finding_text.h"
#include "report/html_findings.h"
#include "report/html_prediction.h"
#include "report/prediction_text.h"
#include "report/units.h"
#include "trace/process_info_keys.h"

namespace syncscope {
namespace {

// Steps per chart beyond this are summed into one bar each (a long run has
// tens of thousands; a bar a few pixels wide still shows a pattern).
constexpr size_t kMaxBars = 400;
// Memory changes drawn: beyond this, the highest level of each slice of time.
constexpr size_t kMaxMemoryPoints = 1500;

constexpr const char* kStyle = R"(
body{font-family:"DejaVu Sans",Verdana,sans-serif;font-size:14px;color:#212121;margin:24px auto;max-width:1000px;
  padding:0 16px;background:#fff}
h1{font-size:22px;margin:0 0 12px}h2{font-size:18px;margin:28px 0 8px;border-bottom:2px solid #e0e0e0;
  padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
code,pre{font-family:"DejaVu Sans Mono",monospace;font-size:12.5px}
pre{background:#f5f5f5;padding:8px;overflow-x:auto;margin:4px 0}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:3px 14px;margin:0}
dl.facts dt{color:#616161}dl.facts dd{margin:0}
.problem{background:#ffebee;border-left:4px solid #c62828;padding:8px 12px}
.simulated{color:#c62828;font-weight:bold}.muted{color:#757575}
.note{background:#fff8e1;border-left:4px solid #f9a825;padding:6px 10px}
ol.findings{padding-left:0;list-style:none}
li.finding{border:1px solid #e0e0e0;border-radius:4px;padding:8px 12px;margin:0 0 10px}
.head{font-size:15px}.rank{color:#757575}.cat{font-weight:bold;color:#c62828}
.cat-allocator-churn{color:#8e24aa}.cat-default-stream{color:#1565c0}.cat-pageable-copy{color:#ef6c00}
code.where{font-weight:bold}code.src{color:#37474f;background:#f5f5f5;padding:1px 4px}
.tag{font-size:12px;background:#eceff1;border-radius:3px;padding:1px 6px}
.figures,.gpu,.hint,.from,.op{margin:4px 0}.gpu{color:#2e7d32}.from,.op{color:#555}
.strip-row{display:flex;align-items:center;gap:8px;margin:4px 0}.label{color:#757575;font-size:12px}
svg.chart{display:block;font-size:11px;fill:#424242}svg .grid{stroke:#e0e0e0}
svg .strip{fill:#fafafa;stroke:#e0e0e0}svg .line{fill:none;stroke:#1565c0;stroke-width:1.5}
ul.legend{list-style:none;padding:0;margin:4px 0;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px}
.swatch{display:inline-block;width:11px;height:11px;margin-right:5px;vertical-align:-1px}
table{border-collapse:collapse;margin:6px 0}td,th{border-bottom:1px solid #e0e0e0;padding:3px 10px;text-align:left}
td.num{text-align:right}footer{margin-top:32px;color:#9e9e9e;font-size:12px}
.tag.saving{background:#e8f5e9;color:#2e7d32}.tag.fails{background:#ffebee;color:#c62828}
.prediction{margin:4px 0}.prediction p.saving{margin:2px 0;color:#2e7d32}
)";

std::string fact(const std::string& name, const std::string& html_value) {
  return "<dt>" + html_escape(name) + "</dt><dd>" + html_value + "</dd>";
}

std::string gpu_fact(const ProcessReport& p) {
  const Analysis& a = p.analysis;
  const GpuPhaseFigures* g = a.gpu_for_phase(0);
  if (g == nullptr || a.phases.empty()) {
    const std::string absent = gpu_timeline_absence(*p.trace, p.analysis.gpu_timeline);
    return absent.empty() ? "" : fact("GPU", html_escape("GPU " + absent + "; host timing only"));
  }
  if (g->steps == 0) return fact("GPU", html_escape(gpu_no_timed_step_text(*p.trace, a.phases[0])));
  const std::string sampled = gpu_sampled_steps_text(*p.trace, *g);
  std::string text = format_percent(g->busy_share()) + " busy per " + a.phases[0].name + " step" +
                     (sampled.empty() ? "" : " (sampled: " + sampled + ")");
  const auto causes = idle_causes_by_share(*g);
  for (size_t i = 0; i < causes.size(); ++i) {
    text += (i == 0 ? "; idle " : ", ") + format_percent(causes[i].second) + " " + gpu_idle_cause_name(causes[i].first);
  }
  if (g->launch_bound) text += " (launch-bound: the GPU mostly waits for the host to issue work)";
  return fact("GPU", html_escape(text));
}

std::string header(const ProcessReport& p) {
  const ProcessTrace& t = *p.trace;
  const Analysis& a = p.analysis;
  std::string command = t.info(info_key::kArgv);
  if (command.empty()) command = t.info(info_key::kExe);
  std::string out = "<dl class=\"facts\">" + fact("command", "<code>" + html_escape(command) + "</code>");
  out += fact("CUDA runtime",
              t.info(info_key::kCudaRuntime) == info_key::kCudaRuntimeSimulated
                  ? "<span class=\"simulated\">SIMULATED (fake CUDA runtime: no GPU was used, timings "
                    "are not real)</span>"
                  : html_escape(t.info(info_key::kCudaRuntime).empty() ? "unknown" : t.info(info_key::kCudaRuntime)));
  out += fact("calls",
              html_escape(std::to_string(p.summary.events) + " CUDA calls (" + std::to_string(p.summary.launches) +
                          " launches) over " + format_duration(p.summary.wall_ns)));
  for (const PhaseInfo& phase : a.phases) {
    if (phase.steps == 0 || phase.source == StepSource::kTime) continue;
    std::string line = std::to_string(phase.steps) + (phase.steps == 1 ? " step of " : " steps of ") +
                       format_duration(static_cast<uint64_t>(phase.step_ns)) + " (found by " +
                       step_source_name(phase.source) + ")";
    const std::string pace = gpu_pace_text(phase);
    if (!pace.empty()) line += ", " + pace;
    if (phase.interrupted_steps > 0) line += ", " + std::to_string(phase.interrupted_steps) + " interrupted";
    out += fact("steps (" + phase.name + ")", html_escape(line));
  }
  if (a.steps.detected) {
    std::string blocked = format_duration(static_cast<uint64_t>(a.blocked_ns_per_step)) + " per step";
    // Of a step's time, as the findings' shares are.
    const double step = a.phases.empty() ? a.steps.step_ns : a.phases[0].step_ns;
    if (step > 0) blocked += " (" + format_percent(a.blocked_ns_per_step / step) + " of step time)";
    out += fact("host blocked", html_escape(blocked));
  } else {
    out += fact("steps", "no repeating launch pattern found");
  }
  out += gpu_fact(p);
  if (p.summary.events_dropped > 0) {
    out += fact("dropped", html_escape(dropped_events_text(t)));
  }
  if (!t.complete) out += fact("trace", html_escape("incomplete: " + t.truncation));
  return out + "</dl>";
}

const std::vector<ChartSeries>& gpu_series() {
  static const std::vector<ChartSeries> series = {
      {"GPU busy", "#2e7d32"},          {"idle: sync", "#c62828"},      {"idle: pageable copy", "#ef6c00"},
      {"idle: free", "#8e24aa"},        {"idle: launching", "#1565c0"}, {"idle: other CUDA call", "#6d4c41"},
      {"idle: no CUDA call", "#bdbdbd"}};
  return series;
}

const std::vector<ChartSeries>& host_series() {
  static const std::vector<ChartSeries> series = {{"host blocked (hidden syncs, pageable copies)", "#c62828"},
                                                  {"rest of the step", "#cfd8dc"}};
  return series;
}

// Whether phase `index` has steps outside the sampled timeline's windows.
bool sampled_steps_only(const Analysis& a, size_t index) {
  const GpuPhaseFigures* g = a.gpu_for_phase(index);
  return g != nullptr && g->untimed_steps > 0;
}

// One bar per step of phase `index` (or per run of steps when there are many).
std::string step_chart(const ProcessReport& p, size_t index) {
  const Analysis& a = p.analysis;
  std::vector<const StepFigures*> steps;
  for (const StepFigures& s : a.step_figures) {
    // With a sampled timeline only the measured steps have GPU bars.
    if (a.gpu_timeline && !s.span.gpu_timed) continue;
    if (s.span.phase_index >= 0 && static_cast<size_t>(s.span.phase_index) == index) steps.push_back(&s);
  }
  if (steps.empty()) return "";
  const bool gpu = a.gpu_timeline;
  const size_t per_bar = (steps.size() + kMaxBars - 1) / kMaxBars;
  StackedBars chart;
  chart.series = gpu ? gpu_series() : host_series();
  for (size_t first = 0; first < steps.size(); first += per_bar) {
    const size_t last = std::min(first + per_bar, steps.size()) - 1;
    std::vector<double> values(chart.series.size(), 0.0);
    uint64_t span = 0;
    for (size_t k = first; k <= last; ++k) {
      const StepFigures& s = *steps[k];
      const uint64_t length = s.span.end_ns - s.span.start_ns;
      span += length;
      if (gpu) {
        values[0] += static_cast<double>(s.gpu_busy_ns);
        for (size_t c = 0; c < kGpuIdleCauses; ++c) values[c + 1] += static_cast<double>(s.gpu_idle_by_cause[c]);
      } else {
        const uint64_t blocked = std::min(s.host_blocked_ns, length);
        values[0] += static_cast<double>(blocked);
        values[1] += static_cast<double>(length - blocked);
      }
    }
    std::string title = a.phases[index].name + " step " + std::to_string(steps[first]->span.step);
    if (last > first)
      title += "–" + std::to_string(steps[last]->span.step) + " (mean of " + std::to_string(last - first + 1) + ")";
    title += ": " + format_duration(span / (last - first + 1));
    for (size_t s = 0; s < values.size(); ++s) {
      if (values[s] > 0)
        title += "; " + chart.series[s].name + " " + format_percent(values[s] / static_cast<double>(span));
    }
    chart.bars.push_back(std::move(values));
    chart.titles.push_back(std::move(title));
  }
  chart.first_label = "step " + std::to_string(steps.front()->span.step);
  chart.last_label = "step " + std::to_string(steps.back()->span.step);
  std::string out = "<h3>" + html_escape(a.phases[index].name) + ": " +
                    (gpu ? "GPU busy and idle by cause, per step" : "host blocked per step") +
                    (gpu && sampled_steps_only(a, index) ? " (the steps inside the timeline's sampling windows)" : "") +
                    "</h3>";
  if (!gpu) out += "<p class=\"note\">" + html_escape("GPU " + gpu_timeline_absence(*p.trace, a.gpu_timeline)) + ": bars show host time only.</p>";
  if (per_bar > 1) out += "<p class=\"muted\">Each bar: " + std::to_string(per_bar) + " steps together.</p>";
  return out + stacked_bars_svg(chart) + legend_html(chart.series);
}

std::string memory_chart(const ProcessReport& p) {
  const ProcessTrace& t = *p.trace;
  // A trace read in windows keeps no calls to draw it from: no points
  // (report --between draws a stretch).
  const DeviceMemory memory = device_memory(t);
  if (memory.points.empty() || !p.span.any) return "";
  const uint64_t origin = p.span.start_ns;
  const uint64_t end = std::max(origin, p.span.end_ns);
  const double seconds = static_cast<double>(end - origin) / 1e9;
  std::vector<LinePoint> points;
  const auto at = [&](uint64_t ns) { return static_cast<double>(ns > origin ? ns - origin : 0) / 1e9; };
  if (memory.points.size() <= kMaxMemoryPoints) {
    for (const MemoryPoint& m : memory.points) points.push_back({at(m.ns), static_cast<double>(m.bytes)});
  } else {
    // The highest level in each slice: a peak is never drawn away.
    const double slice = seconds / static_cast<double>(kMaxMemoryPoints);
    for (const MemoryPoint& m : memory.points) {
      const double x = slice > 0 ? std::floor(at(m.ns) / slice) * slice : 0;
      if (!points.empty() && points.back().x == x) {
        points.back().y = std::max(points.back().y, static_cast<double>(m.bytes));
      } else {
        points.push_back({x, static_cast<double>(m.bytes)});
      }
    }
  }
  char duration[32];
  std::snprintf(duration, sizeof(duration), "%.3g s", seconds);
  std::string out =
      "<h3>Device memory</h3><p class=\"muted\">Allocated through CUDA (cudaMalloc and kin, mapped "
      "virtual memory) and not yet freed; peak " +
      html_escape(format_bytes(memory.peak)) +
      ". Under PyTorch this is what its caching allocator holds, not the tensors in it.</p>";
  return out + step_line_svg(points, seconds, duration, format_bytes(memory.peak),
                             "device memory over time, peak " + format_bytes(memory.peak));
}

std::string process_section(const ProcessReport& p, const Report& report) {
  std::string out = "<section class=\"process\"><h2>" + html_escape(p.label()) + "</h2>" + header(p);
  if (!p.span.any) return out + "<p>Every call was dropped: nothing more to show.</p></section>";
  bool charts = false;
  for (size_t i = 0; i < p.analysis.phases.size(); ++i) {
    const std::string chart = step_chart(p, i);
    out += chart + all_fixed_html(p, i);
    charts |= !chart.empty();
  }
  if (!charts) out += "<p class=\"muted\">No steps found: no per-step chart.</p>";
  out += findings_html(p, report);
  out += memory_chart(p);
  return out + "</section>";
}

std::string ranks_table(const Report& report) {
  if (report.processes.size() < 2) return "";
  std::string out =
      "<h2>Across processes</h2><table><tr><th>process</th><th>steps</th><th>step time</th>"
      "<th>host blocked per step</th><th></th></tr>";
  for (size_t i = 0; i < report.processes.size(); ++i) {
    const ProcessReport& p = report.processes[i];
    const StepInfo& steps = p.analysis.steps;
    std::string outlier;
    for (const auto& o : report.ranks.outliers) {
      if (o.process == i) outlier = "stands out: " + o.reason;
    }
    out +=
        "<tr><td>" + html_escape(p.label()) + "</td><td class=\"num\">" +
        (steps.detected ? std::to_string(steps.steps) : "-") + "</td><td class=\"num\">" +
        (steps.detected ? html_escape(format_duration(static_cast<uint64_t>(steps.step_ns))) : "-") +
        "</td><td class=\"num\">" +
        (steps.detected ? html_escape(format_duration(static_cast<uint64_t>(p.analysis.blocked_ns_per_step))) : "-") +
        "</td><td>" + html_escape(outlier) + "</td></tr>";
  }
  return out + "</table>";
}

std::string gate_line(const Report& report) {
  if (!report.policy.gate.enabled()) return "";
  const bool failed = report.gate_failed || report.gate_blind();
  std::string out = std::string("<h2>Gate</h2><p class=\"") + (failed ? "problem" : "muted") +
                    "\">gate: " + (failed ? "FAIL" : "pass") + "</p><ul>";
  for (const ProcessReport& p : report.processes) {
    for (const CategoryVerdict& v : p.verdicts) {
      if (v.failed)
        out += "<li>" + html_escape(p.label() + ": " + category_name(v.category) + " " + v.reason) + "</li>";
    }
    for (const ReportedFinding& f : p.findings) {
      if (f.saving != SavingCheck::kOver) continue;
      out += "<li>" +
             html_escape(p.label() + ": " + category_name(f.finding.category) + " at " + finding_where(f) + " " +
                         saving_over_reason(*report.policy.gate.fail_on_saving, f.finding)) +
             "</li>";
    }
    if (p.savings_not_judged > 0) out += "<li>" + html_escape(p.label() + ": " + not_judged_text(p.savings_not_judged)) + "</li>";
  }
  return out + "</ul>";
}

}  // namespace

std::string html_report(const Report& report) {
  std::string title = "syncscope report";
  if (!report.processes.empty()) {
    const std::string command = report.processes.front().trace->info(info_key::kArgv);
    if (!command.empty()) title += ": " + command;
  }
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
                    "</title><style>" + kStyle + "</style></head><body><h1>" + html_escape(title) + "</h1>\n";
  if (!report.recording.complete()) {
    out += "<div class=\"problem\"><b>RECORDING INCOMPLETE</b>: this report misses what could not be recorded<ul>";
    for (const RecordingProblem& problem : report.recording.problems) {
      out += "<li>" + html_escape(problem_message(problem)) + "</li>";
    }
    out += "</ul></div>";
  }
  if (report.processes.empty()) out += "<p>No CUDA calls were recorded.</p>";
  for (const ProcessReport& p : report.processes) out += process_section(p, report) + "\n";
  out += ranks_table(report);
  if (report.ended_unwritten > 0) {
    out += "<p class=\"muted\">" + std::to_string(report.ended_unwritten) +
           " processes ended before any of their calls were written (killed, or _exit) not shown.</p>";
  }
  if (report.without_cuda > 0) {
    out += "<p class=\"muted\">" + std::to_string(report.without_cuda) + " processes without CUDA calls not shown.</p>";
  }
  out += gate_line(report);
  return out + "<footer>syncscope " SYNCSCOPE_VERSION "</footer></body></html>\n";
}

}  // namespace syncscope
