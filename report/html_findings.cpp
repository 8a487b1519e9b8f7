#include "report/html_findings.h"

#include <algorithm>
#include <cstdio>

#include "report/finding_text.h"
#include "report/html_charts.h"
#include "report/html_escape.h"
#include "report/html_prediction.h"
#include "report/site_text.h"
#include "trace/source_paths.h"
#include "report/units.h"
#include "trace/process_info_keys.h"

namespace syncscope {
namespace {

constexpr int kMaxCards = 50;  // steady findings shown; JSON lists every one
constexpr size_t kMaxOutsideRows = 50;
constexpr size_t kStripColumns = 160;  // steps per strip column beyond this are summed
constexpr int kStackFrames = 24;       // native frames of their own in a card's stack
constexpr size_t kPythonFrames = 6;

// Counts per step of the finding's phase, summed into at most kStripColumns columns.
std::string step_strip(const ProcessReport& process, const Finding& f) {
  const PhaseInfo* phase = finding_phase(process, f);
  if (phase == nullptr || phase->steps == 0 || f.step_counts.empty()) return "";
  const uint64_t steps = phase->steps;
  const uint64_t per_column = (steps + kStripColumns - 1) / kStripColumns;
  std::vector<double> columns((steps + per_column - 1) / per_column, 0.0);
  uint32_t most = 0;
  for (const FindingStepCount& s : f.step_counts) {
    if (s.step < steps) columns[s.step / per_column] += s.count;
    most = std::max(most, s.count);
  }
  std::string title = "calls per " + phase->name + " step, steps 0 to " + std::to_string(steps - 1) + ": in " +
                      std::to_string(f.step_counts.size()) + " steps, at most " + std::to_string(most) + " in one";
  if (per_column > 1) title += " (each column " + std::to_string(per_column) + " steps)";
  return "<div class=\"strip-row\"><span class=\"label\">per step</span>" + strip_svg(columns, "#c62828", title) +
         "<span class=\"label\">" + html_escape(title) + "</span></div>";
}

std::string figures(const ProcessReport& process, const Finding& f) {
  const PhaseInfo* phase = finding_phase(process, f);
  std::string first = std::to_string(f.count) + (f.count == 1 ? " call" : " calls");
  if (f.per_step > 0) {
    first += ", " + per_step_text(f) + ", " + format_duration(static_cast<uint64_t>(f.blocked_ns_per_step)) +
             " host blocked per step (" + step_share_text(f.step_share) + " of step time)";
  }
  std::string second = f.api_sequence + "; " + format_duration(f.host_blocked_ns) + " host blocked in all";
  if (phase && f.steps_with > 0 && f.steps_with < phase->steps) {
    second += ", in " + std::to_string(f.steps_with) + " of " + std::to_string(phase->steps) + " steps";
  }
  if (f.bytes > 0) second += ", " + format_bytes(f.bytes);
  std::string out = "<p class=\"figures\">" + html_escape(first) + "<br>" + html_escape(second) + "</p>";
  if (!f.gpu_measured) return out;
  std::string gpu;
  if (f.gpu_idle_ns_per_step >= 1000) {  // under a microsecond per step is clock noise
    gpu = "GPU idle per step " + format_duration(static_cast<uint64_t>(f.gpu_idle_ns_per_step)) + " (" +
          step_share_text(f.gpu_idle_share) + " of step time)";
  } else if (f.gpu_idle_ns >= 1000) {
    gpu = "GPU idle " + format_duration(f.gpu_idle_ns);
  }
  if (f.gpu_copy_ns > 0) {
    const double overlap = static_cast<double>(f.gpu_copy_overlap_ns) / static_cast<double>(f.gpu_copy_ns);
    gpu += std::string(gpu.empty() ? "" : "; ") + "copies " + format_percent(overlap) +
           " overlapped with kernels on other streams";
    if (f.gpu_serialized_ns_per_step >= 1) {
      gpu += ", " + format_duration(static_cast<uint64_t>(f.gpu_serialized_ns_per_step)) + " serialised per step";
    }
  }
  if (!gpu.empty()) out += "<p class=\"gpu\">" + html_escape(gpu) + "</p>";
  return out;
}

std::string stack(const ProcessReport& process, const ReportedFinding& r) {
  const SiteFrames& site = r.site;
  const std::vector<PythonSiteFrame>& python = site.python.empty() ? site.waiter_python : site.python;
  const std::vector<std::string> native = native_lines(site, kStackFrames);
  if (python.empty() && native.empty()) return "";
  const std::string cwd = process.trace->info(info_key::kCwd);
  std::string text;
  for (size_t i = 0; i < python.size() && i < kPythonFrames; ++i) {
    text += "py " + display_source_path(python[i].file, cwd) + ":" + std::to_string(python[i].line) + " " +
            python[i].function + "\n";
  }
  for (const std::string& line : native) text += line + "\n";
  return "<details><summary>stack (" + std::to_string(std::min(python.size(), kPythonFrames)) + " Python, " +
         std::to_string(native.size()) + " native lines)</summary><pre>" + html_escape(text) + "</pre></details>";
}

std::string card(const ProcessReport& process, const ReportedFinding& r, int rank) {
  const Finding& f = r.finding;
  const std::string category = category_name(f.category);
  const PhaseInfo* phase = finding_phase(process, f);
  std::string out = "<li class=\"finding\"><div class=\"head\"><span class=\"rank\">#" + std::to_string(rank) +
                    "</span> <span class=\"cat cat-" + category + "\">" + category + "</span> <code class=\"where\">" +
                    html_escape(sync_location(r.site, process.trace->info(info_key::kCwd))) + "</code>";
  const std::string text = sync_text(r.site);
  if (!text.empty()) out += " <code class=\"src\">" + html_escape(text) + "</code>";
  if (r.site.sync_in_library()) out += " <span class=\"tag\">" + html_escape(r.site.sync.library) + "</span>";
  if (phase && process.analysis.phases.size() > 1)
    out += " <span class=\"tag\">" + html_escape(phase->name) + "</span>";
  if (r.known) out += " <span class=\"tag\">in baseline</span>";
  out += saving_tag_html(f);
  if (r.saving == SavingCheck::kOver) out += " <span class=\"tag fails\">fails --fail-on-saving</span>";
  out += "</div>";
  const std::string from = reached_from(r.site, process.trace->info(info_key::kCwd));
  if (!from.empty()) out += "<p class=\"from\">reached from <code>" + html_escape(from) + "</code></p>";
  if (r.operation != Operation::kUnknown) {
    out += "<p class=\"op\">made by: " + html_escape(operation_label(r.operation)) + "</p>";
  }
  out += figures(process, f) + prediction_html(process, f) + step_strip(process, f);
  if (!f.hint.empty()) out += "<p class=\"hint\"><b>hint:</b> " + html_escape(f.hint) + "</p>";
  return out + stack(process, r) + "</li>";
}

std::string outside_table(const ProcessReport& process) {
  std::string rows;
  size_t shown = 0, total = 0;
  for (const ReportedFinding& r : process.findings) {
    if (r.finding.phase == Phase::kSteady || r.suppressed_by >= 0) continue;
    if (++total > kMaxOutsideRows) continue;
    ++shown;
    const Finding& f = r.finding;
    rows += "<tr><td>" + std::string(phase_name(f.phase)) + "</td><td>" + category_name(f.category) +
            "</td><td><code>" + html_escape(sync_location(r.site, process.trace->info(info_key::kCwd))) +
            "</code></td><td>" + html_escape(f.api_sequence) + "</td><td class=\"num\">" + std::to_string(f.count) +
            "</td><td class=\"num\">" + html_escape(format_duration(f.host_blocked_ns)) + "</td></tr>";
  }
  if (total == 0) return "";
  std::string out = "<details class=\"outside\"><summary>" + std::to_string(total) +
                    " outside steady state (warm-up, teardown; lower severity)</summary><table><tr><th>phase</th>"
                    "<th>category</th><th>where</th><th>API</th><th>calls</th><th>host time</th></tr>" +
                    rows + "</table>";
  if (total > shown) out += "<p>… " + std::to_string(total - shown) + " more (--format json lists every finding)</p>";
  return out + "</details>";
}

}  // namespace

std::string findings_html(const ProcessReport& process, const Report& report) {
  std::string out = "<h3>Findings</h3>";
  int rank = 0, steady = 0, suppressed = 0;
  std::string cards;
  for (const ReportedFinding& r : process.findings) {
    if (r.suppressed_by >= 0) {
      ++suppressed;
      continue;
    }
    if (r.finding.phase != Phase::kSteady) continue;
    ++steady;
    if (rank < kMaxCards) cards += card(process, r, ++rank);
  }
  if (steady == 0) {
    out += "<p>No findings in steady state.</p>";
  } else {
    out += "<p>Steady state, worst first: by what fixing each is predicted to save, else by the share of the step "
           "it costs.</p><ol class=\"findings\">" + cards + "</ol>";
    if (steady > rank) {
      out += "<p>… " + std::to_string(steady - rank) + " more steady findings (--format json lists every finding)</p>";
    }
  }
  out += outside_table(process);
  if (suppressed > 0) {
    out += "<p class=\"muted\">" + std::to_string(suppressed) + " suppressed " +
           (suppressed == 1 ? "finding" : "findings") + " not shown (" +
           std::to_string(report.policy.suppressions.size()) + " suppression rules).</p>";
  }
  return out;
}

}  // namespace syncscope
