#include "report/sarif_report.h"

#include "policy/category_list.h"
#include "report/category_help.h"
#include "report/finding_text.h"
#include "report/gpu_timeline_text.h"
#include "report/prediction_text.h"
#include "trace/source_paths.h"
#include "trace/process_info_keys.h"

namespace syncscope {
namespace {

size_t rule_index(Category c) {
  for (size_t i = 0; i < std::size(kAllCategories); ++i) {
    if (kAllCategories[i] == c) return i;
  }
  return 0;
}

nlohmann::json rules_json() {
  nlohmann::json rules = nlohmann::json::array();
  for (Category c : kAllCategories) {
    const CategoryHelp& help = category_help(c);
    rules.push_back({{"id", category_name(c)},
                     {"name", help.rule_name},
                     {"shortDescription", {{"text", help.summary}}},
                     {"fullDescription", {{"text", help.description}}},
                     {"help", {{"text", help.help}}},
                     {"helpUri", "https://github.com/syncscope/syncscope#findings"},
                     {"defaultConfiguration", {{"level", "warning"}}}});
  }
  return rules;
}

// A Python line as a physical location, relative to the source root when
// the file lies under it (a library's file gets its absolute file:// URI).
nlohmann::json physical_location(const UserFrame& line, const std::string& cwd, const std::string& root) {
  std::string absolute = absolute_source_path(line.file, cwd);
  std::string relative = path_inside(absolute, root);
  nlohmann::json artifact = relative.empty()
                                ? nlohmann::json{{"uri", "file://" + uri_escape_path(absolute)}}
                                : nlohmann::json{{"uri", uri_escape_path(relative)}, {"uriBaseId", "SRCROOT"}};
  nlohmann::json region = {{"startLine", line.line}};
  if (!line.source.empty()) region["snippet"] = {{"text", line.source}};
  return {{"artifactLocation", artifact}, {"region", region}};
}

// The line that syncs as the location (the user's line when they are the
// same); native sites have only a logical location.
nlohmann::json location_json(const ReportedFinding& f, const std::string& cwd, const std::string& root) {
  const SiteFrames& site = f.site;
  nlohmann::json location = nlohmann::json::object();
  const UserFrame* line = site.has_sync ? &site.sync : site.has_user && site.user.python ? &site.user : nullptr;
  if (line != nullptr && line->line > 0) location["physicalLocation"] = physical_location(*line, cwd, root);
  if (line != nullptr || site.has_user) {
    const std::string& function = line != nullptr ? line->function : site.user.function;
    location["logicalLocations"] = nlohmann::json::array({{{"name", function}, {"kind", "function"}}});
  } else {
    location["logicalLocations"] = nlohmann::json::array({{{"name", f.finding.api_sequence}, {"kind", "function"}}});
  }
  return location;
}

// The user's line that reached a library's sync, as a related location.
nlohmann::json related_locations_json(const ReportedFinding& f, const std::string& cwd, const std::string& root) {
  const SiteFrames& site = f.site;
  if (!site.sync_in_library() || !site.has_user || !site.user.python || site.user.line == 0) return nullptr;
  return nlohmann::json::array({{{"id", 1},
                                 {"physicalLocation", physical_location(site.user, cwd, root)},
                                 {"message", {{"text", "the user's line that reached it"}}}}});
}

nlohmann::json result_json(const Report& report, const ProcessReport& p, const ReportedFinding& f,
                           const std::string& root) {
  const Finding& finding = f.finding;
  std::string message = std::string(category_name(finding.category)) + " at " + finding_where(f) + ": " +
                        finding_summary(f) + " [" + p.label() + "]";
  const std::string saving = predicted_saving_text(finding, finding.prediction_step_ns, measure_advice(*p.trace));
  if (!saving.empty()) message += "; " + saving;
  if (!finding.hint.empty()) message += ". " + finding.hint;
  nlohmann::json result = {
      {"ruleId", category_name(finding.category)},
      {"ruleIndex", rule_index(finding.category)},
      {"level", level_name(finding_level(p, f))},
      {"message", {{"text", message}}},
      {"locations", nlohmann::json::array({location_json(f, p.trace->info(info_key::kCwd), root)})},
      {"partialFingerprints", {{"syncscopeSite/v1", f.fingerprint}}},
      {"properties",
       {{"phase", phase_name(finding.phase)},
        {"apiSequence", finding.api_sequence},
        {"count", finding.count},
        {"perStep", finding.per_step},
        {"hostBlockedUsPerStep", finding.blocked_ns_per_step / 1e3},
        {"pid", p.trace->header.pid},
        {"rank", p.rank}}},
  };
  const nlohmann::json related = related_locations_json(f, p.trace->info(info_key::kCwd), root);
  if (!related.is_null()) result["relatedLocations"] = related;
  result["properties"]["operation"] = operation_name(f.operation);
  if (finding.predicted) {
    result["properties"]["predictedSavingUsPerStep"] = {finding.saving_ns_per_step_low / 1e3,
                                                        finding.saving_ns_per_step_high / 1e3};
  }
  if (f.known_site != nullptr) result["properties"]["knownSite"] = f.known_site->id;
  if (report.policy.baseline) result["baselineState"] = f.known ? "unchanged" : "new";
  if (f.suppressed_by >= 0) {
    const SuppressionRule& rule = report.policy.suppressions[f.suppressed_by];
    result["suppressions"] = nlohmann::json::array(
        {{{"kind", "external"}, {"justification", "syncscope suppression " + rule.text + " (" + rule.source + ")"}}});
  }
  return result;
}

// An incomplete recording is a failed execution of the tool, each problem
// an error notification: SARIF viewers show them apart from the findings.
nlohmann::json invocation_json(const Report& report) {
  nlohmann::json invocation = {{"executionSuccessful", report.recording.complete()},
                               {"properties", {{"gateFailed", report.gate_failed || report.gate_blind()}}}};
  if (report.recording.complete()) return invocation;
  nlohmann::json notifications = nlohmann::json::array();
  for (const RecordingProblem& p : report.recording.problems) {
    notifications.push_back(
        {{"level", "error"}, {"descriptor", {{"id", p.kind}}}, {"message", {{"text", problem_message(p)}}}});
  }
  invocation["toolExecutionNotifications"] = notifications;
  invocation["properties"]["recordingComplete"] = false;
  return invocation;
}

}  // namespace

nlohmann::json findings_sarif(const Report& report) {
  // The first process's working directory is the source root (a CI job runs
  // from its checkout); files elsewhere get absolute file:// URIs.
  std::string root = report.processes.empty() ? "" : report.processes.front().trace->info(info_key::kCwd);
  nlohmann::json results = nlohmann::json::array();
  for (const ProcessReport& p : report.processes) {
    for (const ReportedFinding& f : p.findings) results.push_back(result_json(report, p, f, root));
  }
  nlohmann::json run = {
      {"tool",
       {{"driver",
         {{"name", "syncscope"},
          {"version", SYNCSCOPE_VERSION},
          {"informationUri", "https://github.com/syncscope/syncscope"},
          {"rules", rules_json()}}}}},
      {"results", results},
      {"invocations", nlohmann::json::array({invocation_json(report)})},
  };
  if (!root.empty()) run["originalUriBaseIds"] = {{"SRCROOT", {{"uri", "file://" + uri_escape_path(root) + "/"}}}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", nlohmann::json::array({run})}};
}

}  // namespace syncscope
