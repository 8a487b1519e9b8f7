#include "report/junit_report.h"

#include <sstream>

#include "policy/category_list.h"
#include "report/category_help.h"
#include "report/finding_text.h"
#include "report/html_escape.h"

namespace syncscope {
namespace {

std::string findings_text(const ProcessReport& p, Category c, bool counted_only) {
  std::string out;
  for (const ReportedFinding& f : p.findings) {
    if (f.finding.category != c || (counted_only && !f.counted)) continue;
    if (!counted_only && f.counted) continue;
    std::string state = f.suppressed_by >= 0 ? " [suppressed]" : f.known ? " [in baseline]" : "";
    out += std::string(category_name(c)) + " at " + finding_where(f) + state + " (" + phase_name(f.finding.phase) +
           "): " + finding_summary(f) + "\n";
    const std::string& source = f.site.has_sync ? f.site.sync.source : f.site.user.source;
    if (!source.empty()) out += "    | " + source + "\n";
  }
  return out;
}

}  // namespace

std::string findings_junit(const Report& report) {
  std::ostringstream suites;
  size_t total_tests = 0, total_failures = 0;
  for (const ProcessReport& p : report.processes) {
    std::string suite_name = "syncscope " + p.label();
    std::string classname =
        p.rank.empty() ? "syncscope.pid" + std::to_string(p.trace->header.pid) : "syncscope.rank" + p.rank;
    std::ostringstream cases;
    size_t failures = 0;
    for (Category c : kAllCategories) {
      cases << "    <testcase classname=\"" << xml_escape(classname) << "\" name=\"" << category_name(c)
            << "\" time=\"0\">\n";
      std::string counted = findings_text(p, c, true);
      if (category_fails(report, p, c)) {
        ++failures;
        std::string message;
        for (const CategoryVerdict& v : p.verdicts) {
          if (v.category == c && !v.reason.empty()) message = std::string(category_name(c)) + " " + v.reason;
        }
        for (const ReportedFinding& f : p.findings) {
          if (f.finding.category != c || f.saving != SavingCheck::kOver) continue;
          message += std::string(message.empty() ? "" : "; ") + finding_where(f) + " " +
                     saving_over_reason(*report.policy.gate.fail_on_saving, f.finding);
        }
        if (message.empty()) message = std::string(category_help(c).summary);
        cases << "      <failure type=\"" << category_name(c) << "\" message=\"" << xml_escape(message) << "\">"
              << xml_escape(counted) << "</failure>\n";
      }
      std::string other = findings_text(p, c, false);
      if (!other.empty() || (!counted.empty() && !category_fails(report, p, c))) {
        cases << "      <system-out>" << xml_escape(category_fails(report, p, c) ? other : counted + other)
              << "</system-out>\n";
      }
      cases << "    </testcase>\n";
    }
    size_t tests = std::size(kAllCategories);
    total_tests += tests;
    total_failures += failures;
    suites << "  <testsuite name=\"" << xml_escape(suite_name) << "\" tests=\"" << tests << "\" failures=\"" << failures
           << "\" errors=\"0\" skipped=\"0\" time=\"" << p.summary.wall_ns / 1e9 << "\">\n"
           << cases.str() << "  </testsuite>\n";
  }
  // Only when something is missing: one failing case a JUnit viewer cannot overlook.
  if (!report.recording.complete()) {
    std::string problems;
    for (const RecordingProblem& p : report.recording.problems) problems += problem_message(p) + "\n";
    ++total_tests;
    ++total_failures;
    suites << "  <testsuite name=\"syncscope recording\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\" "
              "time=\"0\">\n"
           << "    <testcase classname=\"syncscope\" name=\"recording\" time=\"0\">\n"
           << "      <failure type=\"recording-incomplete\" message=\"the recording is incomplete: "
           << report.recording.problems.size() << " problem(s)\">" << xml_escape(problems) << "</failure>\n"
           << "    </testcase>\n  </testsuite>\n";
  }
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"syncscope\" tests=\"" << total_tests << "\" failures=\"" << total_failures
      << "\" errors=\"0\">\n"
      << suites.str() << "</testsuites>\n";
  return out.str();
}

}  // namespace syncscope
