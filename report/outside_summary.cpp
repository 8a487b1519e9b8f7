#include "report/outside_summary.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "report/frame_folding.h"
#include "trace/source_paths.h"
#include "report/text_layout.h"
#include "report/units.h"
#include "trace/process_info_keys.h"

namespace syncscope {
namespace {

std::string row_site(const ReportedFinding& r, const std::string& cwd) {
  const SiteFrames& site = r.site;
  if (site.has_user && site.user.python) {
    return display_source_path(site.user.file, cwd) + ":" + std::to_string(site.user.line);
  }
  if (site.has_user && site.user_native_index >= 0) {
    return elide_symbol(site.user.function) + " (" + site.native[site.user_native_index].module + ")";
  }
  return r.finding.api_sequence;  // no user frame: sites are told apart by what they did
}

}  // namespace

std::vector<OutsideRow> summarize_outside_steady(const ProcessReport& process) {
  const std::string cwd = process.trace->info(info_key::kCwd);
  std::map<std::pair<Category, std::string>, OutsideRow> rows;
  for (const ReportedFinding& r : process.findings) {
    const Finding& f = r.finding;
    if (f.phase == Phase::kSteady || r.suppressed_by >= 0) continue;
    std::string site = row_site(r, cwd);
    OutsideRow& row = rows[{f.category, site}];
    row.category = f.category;
    row.site = site;
    if (row.source.empty()) row.source = r.site.user.source;
    (f.phase == Phase::kWarmup ? row.warmup_calls : row.teardown_calls) += f.count;
    row.host_ns += f.host_blocked_ns;
  }
  std::vector<OutsideRow> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  std::stable_sort(out.begin(), out.end(), [](const OutsideRow& a, const OutsideRow& b) {
    return std::tie(b.host_ns, a.category) < std::tie(a.host_ns, b.category);
  });
  return out;
}

void render_outside_table(const std::vector<OutsideRow>& rows, int max_rows, std::ostream& out) {
  // 5 + 17 + 46 + 8 + 10 + 12 = 98 columns.
  constexpr size_t kSite = 46;
  out << "     " << pad("category", 17) << pad("site", kSite) << lpad("warm-up", 8) << lpad("teardown", 10)
      << lpad("host time", 12) << "\n";
  size_t shown = 0;
  for (const OutsideRow& row : rows) {
    if (max_rows >= 0 && shown == static_cast<size_t>(max_rows)) break;
    std::string site = row.source.empty() ? row.site : row.site + "  " + row.source;
    out << "     " << pad(category_name(row.category), 17) << pad(truncate_columns(site, kSite - 2), kSite)
        << lpad(std::to_string(row.warmup_calls), 8) << lpad(std::to_string(row.teardown_calls), 10)
        << lpad(format_duration(row.host_ns), 12) << "\n";
    ++shown;
  }
  if (shown < rows.size()) {
    size_t rest = rows.size() - shown;
    out << "     … " << rest << " more " << (rest == 1 ? "site" : "sites") << " (--details lists them all)\n";
  }
}

}  // namespace syncscope
