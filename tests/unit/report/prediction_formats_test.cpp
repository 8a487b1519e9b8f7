// What fixing a finding saves, in the formats beyond text and JSON's
// figures (issue 27): the report's order by predicted saving, the HTML
// card's saving, its picture of the step with and without the fix and the
// phase's "all fixed", the SARIF and GitHub messages, and --fail-on-saving's
// verdict in the report model, the text, JSON, SARIF levels and HTML. The
// two-rank job (two_rank_job.h) with predictions set by hand on its
// analysis: renderers only render what the model holds.
#include <gtest/gtest.h>

#include <sstream>

#include "report/github_report.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/sarif_report.h"
#include "report/text_report.h"
#include "tests/unit/report/two_rank_job.h"

namespace syncscope::testing {
namespace {

// Sets a prediction on finding `i` of the trace's analysis: it saves
// `low`..`high` of its phase's step.
void predict(AnalysedTrace& trace, size_t i, double low, double high, bool measured) {
  Finding& f = trace.analysis.findings.at(i);
  ASSERT_EQ(f.phase, Phase::kSteady);
  const double step = trace.analysis.phases.at(static_cast<size_t>(f.phase_index)).step_ns;
  f.predicted = true;
  f.prediction_measured = measured;
  f.predicted_fix = "drop-sync";
  f.prediction_step_ns = step;
  f.replayed_step_ns = step;
  f.saving_ns_per_step_low = low * step;
  f.saving_ns_per_step_high = high * step;
  f.step_ns_without_low = step - f.saving_ns_per_step_high;
  f.step_ns_without_high = step - f.saving_ns_per_step_low;
}

// Rank 1's steady findings that are neither suppressed nor in the baseline
// (its native syncs) get predictions, `low`..`high` each, unless `any` is
// false; the rest none.
struct Job {
  std::vector<AnalysedTrace> traces = analysed({rank_trace(1)}, two_rank_policy().steps);
  Report report;

  Job(std::optional<double> fail_on_saving, double low, double high, bool measured = true, bool any = true) {
    Analysis& a = traces[0].analysis;
    a.all_fixed.clear();
    for (size_t i = 0; i < a.findings.size(); ++i) {
      Finding& f = a.findings[i];
      f.predicted = false;
      if (any && f.phase == Phase::kSteady && f.api == "cudaStreamSynchronize" && f.stack_id == 3) {
        predict(traces[0], i, low, high, measured);
      }
    }
    const double step = a.phases.at(0).step_ns;
    // Named fields: a field added to the struct must not shift the others.
    a.all_fixed.push_back({.phase_index = 0,
                           .measured = measured,
                           .recorded_step_ns = step,
                           .replayed_step_ns = step,
                           .step_ns_without_low = step * (1 - high - 0.05),
                           .step_ns_without_high = step * (1 - low - 0.05),
                           .fits = true,
                           .floor = false,
                           .ceiling = false,
                           .saving_ns_low = step * (low + 0.05),
                           .saving_ns_high = step * (high + 0.05)});
    ReportOptions options = two_rank_policy();
    options.policy.gate.budgets.clear();
    options.policy.gate.fail_on_saving = fail_on_saving;
    report = build_report(traces, options);
  }
  const ProcessReport& process() const { return report.processes.at(0); }
  const ReportedFinding& predicted_one() const {
    for (const ReportedFinding& r : process().findings) {
      if (r.finding.predicted) return r;
    }
    throw std::runtime_error("no predicted finding");
  }
};

TEST(PredictionFormats, TheReportRanksByPredictedSavingOverSeverity) {
  Job small(std::nullopt, 0.001, 0.001);
  Job large(std::nullopt, 0.9, 0.9);
  const auto steady_first_is_predicted = [](const Job& job) {
    return job.process().findings.at(0).finding.predicted;
  };
  EXPECT_FALSE(steady_first_is_predicted(small)) << "a 0.1% saving ranks under a finding costing more";
  EXPECT_TRUE(steady_first_is_predicted(large)) << "a 90% saving ranks first";
}

TEST(PredictionFormats, HtmlShowsTheSavingAndTheStepWithAndWithoutTheFix) {
  Job job(std::nullopt, 0.20, 0.20);
  const std::string html = html_report(job.report);
  EXPECT_NE(html.find("<span class=\"tag saving\" title=\"predicted saving per step\">saves 20%</span>"),
            std::string::npos);
  EXPECT_NE(html.find("fixing it (drop-sync) saves"), std::string::npos);
  EXPECT_NE(html.find("(20%), measured</p>"), std::string::npos);
  EXPECT_NE(html.find("as recorded (replayed): "), std::string::npos);
  EXPECT_NE(html.find("without it (drop-sync): "), std::string::npos);
  EXPECT_NE(html.find("fixing every steady finding saves"), std::string::npos) << "the phase's all fixed";
  EXPECT_NE(html.find("(25%), measured"), std::string::npos) << "all fixed: 20% + 5%, neither floor nor ceiling";
  EXPECT_EQ(html.find("saves at most"), std::string::npos);
  EXPECT_NE(html.find("every steady finding fixed: "), std::string::npos);
  for (const char* outside : {"<script", "<link", "src=", "href="}) EXPECT_EQ(html.find(outside), std::string::npos);
}

TEST(PredictionFormats, HtmlDrawsAHostBoundSavingAsAnInterval) {
  Job job(std::nullopt, 0.10, 0.30, false);
  const std::string html = html_report(job.report);
  EXPECT_NE(html.find("saves 10%–30%</span>"), std::string::npos);
  EXPECT_NE(html.find("estimated from host timing"), std::string::npos);
  EXPECT_NE(html.find("fill=\"#80cbc4\""), std::string::npos) << "the interval's span, lighter";
  EXPECT_NE(html.find("(GPU times bounded from host timing)"), std::string::npos);
}

TEST(PredictionFormats, SarifAndGithubMessagesCarryTheSaving) {
  Job job(std::nullopt, 0.20, 0.20);
  const nlohmann::json sarif = findings_sarif(job.report);
  bool found = false;
  for (const nlohmann::json& result : sarif["runs"][0]["results"]) {
    const std::string message = result["message"]["text"];
    if (message.find("fixing it (drop-sync) saves") == std::string::npos) continue;
    found = true;
    EXPECT_NE(message.find("(20%), measured"), std::string::npos) << message;
    EXPECT_TRUE(result["properties"].contains("predictedSavingUsPerStep"));
  }
  EXPECT_TRUE(found);
  const std::string github = findings_github(job.report, "");
  EXPECT_NE(github.find("fixing it (drop-sync) saves"), std::string::npos) << github;
}

TEST(PredictionFormats, FailOnSavingFailsOnlyFindingsOverTheThreshold) {
  Job over(0.10, 0.20, 0.20);
  EXPECT_TRUE(over.report.gate_failed);
  EXPECT_EQ(over.predicted_one().saving, SavingCheck::kOver);
  EXPECT_GE(over.process().savings_over, 1u);
  std::ostringstream text;
  render_text_report(over.report, TextReportOptions{}, text);
  EXPECT_NE(text.str().find("gate: FAIL"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("saving<=10%"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("saves 20.0% of a step > 10%"), std::string::npos) << text.str();
  const nlohmann::json json = findings_json(over.report);
  EXPECT_EQ(json["policy"]["gate"]["fail_on_saving"], "10%");
  EXPECT_EQ(json["processes"][0]["gate"]["saving"]["threshold"], "10%");
  EXPECT_GE(json["processes"][0]["gate"]["saving"]["over"].get<int>(), 1);
  bool over_marked = false;
  for (const nlohmann::json& f : json["processes"][0]["findings"]) over_marked |= f["saving_gate"] == "over";
  EXPECT_TRUE(over_marked);
  EXPECT_NE(html_report(over.report).find("fails --fail-on-saving"), std::string::npos);
  EXPECT_NE(findings_github(over.report, "").find("::error "), std::string::npos) << "over the threshold: an error";

  Job under(0.30, 0.20, 0.20);
  EXPECT_FALSE(under.report.gate_failed);
  EXPECT_EQ(under.predicted_one().saving, SavingCheck::kUnder);
  // The host-bound interval: its low end decides.
  EXPECT_FALSE(Job(0.10, 0.05, 0.40, false).report.gate_failed);
  EXPECT_TRUE(Job(0.10, 0.15, 0.40, false).report.gate_failed);
}

TEST(PredictionFormats, FindingsWithoutAPredictionAreSaidNotJudged) {
  Job job(0.10, 0.0, 0.0, true, false);
  // Rank 1's native syncs count and have no prediction.
  ASSERT_GE(job.process().savings_not_judged, 1u);
  EXPECT_FALSE(job.report.gate_failed) << "not judged: does not fail";
  std::ostringstream text;
  render_text_report(job.report, TextReportOptions{}, text);
  EXPECT_NE(text.str().find("could not be judged"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("gate: pass"), std::string::npos) << text.str();
  EXPECT_NE(html_report(job.report).find("could not be judged"), std::string::npos);
}

TEST(PredictionFormats, FailOnSavingAloneStillFailsClosedOnAnIncompleteRecording) {
  std::vector<AnalysedTrace> traces = analysed({rank_trace(1)}, two_rank_policy().steps);
  traces[0].trace.complete = false;  // no end record: its last calls are missing
  ReportOptions options;
  options.policy.gate.fail_on_saving = 0.99;  // nothing saves that much
  const Report report = build_report(traces, options);
  EXPECT_FALSE(report.gate_failed);
  EXPECT_TRUE(report.gate_blind()) << "the gate cannot pass on what was not recorded (exit 4)";
}

}  // namespace
}  // namespace syncscope::testing
