#include "report/finding_text.h"

#include <cmath>
#include <cstdio>

#include "trace/source_paths.h"
#include "report/units.h"

namespace syncscope {

FindingLevel finding_level(const ProcessReport& process, const ReportedFinding& finding) {
  if (!finding.counted) return FindingLevel::kNote;
  if (finding.saving == SavingCheck::kOver) return FindingLevel::kError;
  for (const CategoryVerdict& v : process.verdicts) {
    if (v.category == finding.finding.category && v.failed) return FindingLevel::kError;
  }
  return FindingLevel::kWarning;
}

const char* level_name(FindingLevel level) {
  switch (level) {
    case FindingLevel::kError:
      return "error";
    case FindingLevel::kWarning:
      return "warning";
    case FindingLevel::kNote:
      return "note";
  }
  return "note";
}

bool category_fails(const Report& report, const ProcessReport& process, Category category) {
  if (report.policy.gate.enabled()) {
    for (const ReportedFinding& f : process.findings) {
      if (f.finding.category == category && f.saving == SavingCheck::kOver) return true;
    }
    for (const CategoryVerdict& v : process.verdicts) {
      if (v.category == category) return v.failed;
    }
    return false;
  }
  for (const ReportedFinding& f : process.findings) {
    if (f.finding.category == category && f.counted) return true;
  }
  return false;
}

std::string finding_where(const ReportedFinding& finding) {
  const SiteFrames& site = finding.site;
  if (site.sync_in_library()) {
    std::string where = display_source_path(site.sync.file, "") + ":" + std::to_string(site.sync.line) + " in " +
                        site.sync.function + " (" + site.sync.library + ")";
    if (site.has_user && site.user.python) {
      where += ", reached from " + site.user.file + ":" + std::to_string(site.user.line) + " in " + site.user.function;
    }
    return where;
  }
  if (site.has_user && site.user.python) {
    return site.user.file + ":" + std::to_string(site.user.line) + " in " + site.user.function;
  }
  if (site.has_user && site.user_native_index >= 0) {
    return site.user.function + " (" + site.native[site.user_native_index].module + ")";
  }
  return "unknown site";
}

std::string burst_text(const Finding& f) {
  if (f.every_n_steps <= 1 || f.steps_with == 0) return "";
  const double per_burst = static_cast<double>(f.count) / static_cast<double>(f.steps_with);
  const long long calls = std::llround(per_burst);
  char buffer[96];
  std::snprintf(buffer, sizeof(buffer), "%s%lld %s every %llu steps",
                std::fabs(per_burst - static_cast<double>(calls)) > 0.05 ? "~" : "", calls, calls == 1 ? "call" : "calls",
                static_cast<unsigned long long>(f.every_n_steps));
  return buffer;
}

std::string per_step_text(const Finding& f) {
  if (f.per_step <= 0) return "";
  char buffer[96];
  if (f.every_n_steps > 1 && f.steps_with > 0) {
    return burst_text(f);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.2f per step", f.per_step);
  }
  return buffer;
}

std::string step_share_text(double share) {
  if (share > 0 && share < 0.005) return "<1%";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.0f%%", 100.0 * share);
  return buffer;
}

std::string gpu_cost_text(const Finding& f) {
  if (!f.gpu_measured) return "";
  std::string gpu;
  if (f.gpu_idle_ns_per_step >= 1000) {  // under a microsecond per step is clock noise
    gpu = "GPU idle per step " + format_duration(static_cast<uint64_t>(f.gpu_idle_ns_per_step)) + " (" +
          step_share_text(f.gpu_idle_share) + " of step time)";
  } else if (f.gpu_idle_ns >= 1000 && f.per_step == 0) {
    gpu = "GPU idle " + format_duration(f.gpu_idle_ns);
  }
  if (f.category == Category::kDefaultStream && f.gpu_copy_ns > 0) {
    const double overlap = static_cast<double>(f.gpu_copy_overlap_ns) / static_cast<double>(f.gpu_copy_ns);
    gpu += std::string(gpu.empty() ? "" : "; ") + "copies " + format_percent(overlap) +
           " overlapped with kernels on other streams";
    if (f.gpu_serialized_ns_per_step >= 1) {
      gpu += ", " + format_duration(static_cast<uint64_t>(f.gpu_serialized_ns_per_step)) + " serialised per step";
    }
  }
  return gpu;
}

std::string finding_summary(const ReportedFinding& finding) {
  const Finding& f = finding.finding;
  std::string out = f.api_sequence + ": " + std::to_string(f.count) + (f.count == 1 ? " call" : " calls");
  if (finding.operation != Operation::kUnknown) out = std::string(operation_label(finding.operation)) + ", " + out;
  if (f.per_step > 0) {
    char buffer[160];
    std::snprintf(buffer, sizeof(buffer), ", %s host blocked per step (%s of step time)",
                  format_duration(static_cast<uint64_t>(f.blocked_ns_per_step)).c_str(),
                  step_share_text(f.step_share).c_str());
    out += ", " + per_step_text(f) + buffer;
  } else {
    out += ", " + format_duration(f.host_blocked_ns) + " host blocked";
  }
  const std::string gpu = gpu_cost_text(f);
  if (!gpu.empty()) out += "; " + gpu;
  return out;
}

}  // namespace syncscope
