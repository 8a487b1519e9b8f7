// An incomplete recording, said in every format: first in the text report,
// as `recording` in the JSON, a failed execution in SARIF, a failing case in
// JUnit, error annotations for GitHub; and a gate that cannot pass.
#include <gtest/gtest.h>

#include <sstream>

#include "report/github_report.h"
#include "report/json_report.h"
#include "report/junit_report.h"
#include "report/sarif_report.h"
#include "report/text_report.h"
#include "tests/unit/report/report_test_util.h"
#include "trace/recording_status.h"

namespace syncscope::testing {
namespace {

ReportOptions gated() {
  ReportOptions options;
  options.policy.gate.fail_on = {Category::kPageableCopy};
  return options;
}

TEST(IncompleteRecording, DroppedEventsInATraceAreAProblem) {
  std::vector<AnalysedTrace> traces = analysed({sample_trace()});
  EXPECT_TRUE(build_report(traces, gated()).recording.complete());
  traces[0].trace.events_dropped = 12;
  Report report = build_report(traces, gated());
  ASSERT_EQ(report.recording.problems.size(), 1u);
  EXPECT_EQ(report.recording.problems[0], (RecordingProblem{321, kStatusEventsDropped, "12"}));
  EXPECT_TRUE(report.gate_blind());
  // Without a gate nothing is blind: the report only warns.
  EXPECT_FALSE(build_report(traces, ReportOptions{}).gate_blind());
}

TEST(IncompleteRecording, EveryFormatSaysSo) {
  std::vector<AnalysedTrace> traces = analysed({sample_trace()});
  ReportOptions options = gated();
  options.policy.gate.fail_on = {Category::kDefaultStream};  // passes on the findings
  Report report = build_report(traces, options);
  ASSERT_FALSE(report.gate_failed);
  add_problem(&report.recording.problems, {77, kStatusWriteFailed, "/t/77-0.sstrace: No space left on device"});
  add_problem(&report.recording.problems, {0, kStatusDirectoryRemoved, "/t"});
  ASSERT_TRUE(report.gate_blind());

  std::ostringstream text;
  render_text_report(report, TextReportOptions{}, text);
  EXPECT_EQ(text.str().rfind("RECORDING INCOMPLETE: this report misses what could not be recorded\n"
                             "   pid 77 stopped recording, its trace could not be written: /t/77-0.sstrace: No space "
                             "left on device\n"
                             "   the output directory /t was deleted during the run\n",
                             0),
            0u)
      << text.str();
  EXPECT_NE(text.str().find("gate: FAIL"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("gate: pass ("), std::string::npos) << text.str();

  nlohmann::json json = findings_json(report);
  EXPECT_EQ(json["recording"]["complete"], false);
  ASSERT_EQ(json["recording"]["problems"].size(), 2u);
  EXPECT_EQ(json["recording"]["problems"][0]["pid"], 77);
  EXPECT_EQ(json["recording"]["problems"][0]["kind"], "write-failed");
  EXPECT_TRUE(json["recording"]["problems"][1]["pid"].is_null());
  EXPECT_EQ(json["policy"]["gate"]["failed"], true);
  EXPECT_EQ(json["policy"]["gate"]["recording_incomplete"], true);

  nlohmann::json invocation = findings_sarif(report)["runs"][0]["invocations"][0];
  EXPECT_EQ(invocation["executionSuccessful"], false);
  EXPECT_EQ(invocation["toolExecutionNotifications"].size(), 2u);
  EXPECT_EQ(invocation["toolExecutionNotifications"][0]["level"], "error");

  std::string xml = findings_junit(report);
  EXPECT_NE(xml.find("<testcase classname=\"syncscope\" name=\"recording\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("No space left on device"), std::string::npos) << xml;

  std::string github = findings_github(report, "");
  EXPECT_EQ(github.rfind("::error title=syncscope recording incomplete::pid 77 stopped recording", 0), 0u) << github;
}

}  // namespace
}  // namespace syncscope::testing
