#include "report/github_report.h"

#include "report/category_help.h"
#include "report/finding_text.h"
#include "report/gpu_timeline_text.h"
#include "report/prediction_text.h"
#include "trace/source_paths.h"
#include "trace/process_info_keys.h"

namespace syncscope {

std::string github_escape_data(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out += c;
  }
  return out;
}

std::string github_escape_property(const std::string& text) {
  std::string out;
  for (char c : github_escape_data(text)) {
    if (c == ':')
      out += "%3A";
    else if (c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

std::string findings_github(const Report& report, const std::string& workspace) {
  std::string out;
  // First, and always an error: the annotations below may be missing some.
  for (const RecordingProblem& p : report.recording.problems) {
    out += "::error title=" + github_escape_property("syncscope recording incomplete") +
           "::" + github_escape_data(problem_message(p)) + "\n";
  }
  for (const ProcessReport& p : report.processes) {
    std::string cwd = p.trace->info(info_key::kCwd);
    for (const ReportedFinding& f : p.findings) {
      // Only what counts: known and suppressed findings stay off the diff.
      // Annotated on the user's line (a library's file is not in the diff); the
      // message names the library's line that syncs (finding_where).
      if (!f.counted) continue;
      const Finding& finding = f.finding;
      std::string properties;
      if (f.site.has_user && f.site.user.python && f.site.user.line > 0) {
        std::string absolute = absolute_source_path(f.site.user.file, cwd);
        std::string file = path_inside(absolute, workspace.empty() ? cwd : workspace);
        if (file.empty()) file = absolute;
        properties = "file=" + github_escape_property(file) + ",line=" + std::to_string(f.site.user.line) + ",";
      }
      properties += "title=" + github_escape_property(std::string("syncscope ") + category_name(finding.category) +
                                                      " (" + p.label() + ")");
      std::string message = std::string(category_help(finding.category).summary) + " " + finding_summary(f) + " at " +
                            finding_where(f);
      const std::string saving = predicted_saving_text(finding, finding.prediction_step_ns, measure_advice(*p.trace));
      if (!saving.empty()) message += "; " + saving;
      message += "\n" + finding.hint;
      FindingLevel level = finding_level(p, f);
      out += "::" + std::string(level == FindingLevel::kNote ? "notice" : level_name(level)) + " " + properties +
             "::" + github_escape_data(message) + "\n";
    }
  }
  return out;
}

}  // namespace syncscope
