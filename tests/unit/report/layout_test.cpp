// The text layout of a PyTorch job (tests/unit/report/pytorch_job.h): the
// user line first, folded frames, a finding made on autograd's thread
// attributed to the line that waited, a periodic site, phases in the
// header, the warm-up table. The golden expected_layout.txt is what a
// person reads; SYNCSCOPE_UPDATE_GOLDEN=1 rewrites it,
// SYNCSCOPE_PRINT_LAYOUT=1 prints it.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "report/json_report.h"
#include "report/outside_summary.h"
#include "report/text_layout.h"
#include "report/text_report.h"
#include "tests/unit/report/pytorch_job.h"

namespace syncscope::testing {
namespace {

std::string render(const Report& report, TextReportOptions options = {}) {
  std::ostringstream out;
  render_text_report(report, options, out);
  std::string text = out.str();
  for (size_t at; (at = text.find(kGolden)) != std::string::npos;) text.replace(at, kGolden.size(), "<GOLDEN>");
  return text;
}

void expect_golden(const std::string& name, const std::string& text) {
  std::string path = kGolden + "/" + name;
  if (std::getenv("SYNCSCOPE_UPDATE_GOLDEN")) {
    std::ofstream(path) << text;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " missing; run with SYNCSCOPE_UPDATE_GOLDEN=1";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(text, expected.str()) << "golden " << name << " differs (SYNCSCOPE_UPDATE_GOLDEN=1 rewrites it)";
}

TEST(Layout, Golden) {
  JobFixture job;
  std::string text = render(job.report);
  expect_golden("expected_layout.txt", text);
  if (std::getenv("SYNCSCOPE_PRINT_LAYOUT")) std::cout << text;  // to read it on a terminal
  // Every line fits a 100-column screen.
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(text_columns(line), kScreenColumns) << line;
}

TEST(Layout, UserLineFirstThenFiguresFramesHint) {
  JobFixture job;
  std::string text = render(job.report);
  size_t header = text.find("   #1 hidden-sync  train_loop.py:15  running = loss.item()  [train]\n");
  ASSERT_NE(header, std::string::npos) << text;
  size_t figures = text.find("118 calls, 1.00 per step, 520.0 µs host blocked per step (17% of step time)", header);
  size_t python = text.find("py train_loop.py:15 train", header);
  size_t native = text.find("at::native::_local_scalar_dense_cuda(…) (libtorch_cuda.so)", header);
  size_t hint = text.find("hint:", header);
  EXPECT_LT(header, figures);
  EXPECT_LT(figures, python);
  EXPECT_LT(python, native);
  EXPECT_LT(native, hint);
  EXPECT_EQ(text.find("WrapFunctionIntoFunctor_"), std::string::npos) << "templates are elided";
  EXPECT_NE(text.find("… 3 dispatcher frames …"), std::string::npos);
}

TEST(Layout, PhasesInTheHeader) {
  JobFixture job;
  std::string text = render(job.report);
  EXPECT_NE(text.find("   train: 118 steps (optimizer.step() at train_loop.py:14), 3.10 ms each, 2 interrupted\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("   eval: 12 steps (a repeating pattern of 40 calls), 8.10 ms each\n"), std::string::npos);
  EXPECT_NE(text.find("   host blocked 655.0 µs per train step\n"), std::string::npos);
  EXPECT_EQ(text.find("steps: "), std::string::npos);
  // Markers not filled in (a report put together by hand): no marker named, nothing read out of range.
  job.report.processes[0].phase_markers.clear();
  EXPECT_NE(render(job.report).find("   train: 118 steps (optimizer.step()), 3.10 ms each"), std::string::npos);
  EXPECT_TRUE(findings_json(job.report)["processes"][0]["phases"][0]["marker"].is_null());
  // A phase without steps (time-based warm-up only) is said by the warm-up line.
  JobFixture no_steps;
  ProcessReport& p = no_steps.report.processes[0];
  p.analysis.phases = {PhaseInfo{"train", StepSource::kTime}};
  p.analysis.steps = StepInfo{};
  p.analysis.steps.steady_start_ns = 201000;
  text = render(no_steps.report);
  EXPECT_NE(text.find("   steps: no repeating launch pattern; the first 200.0 µs count as warm-up\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("train:"), std::string::npos) << text;
  // Without phases (detectors that do not fill them): the one steps line.
  job.report.processes[0].analysis.phases.clear();
  job.report.processes[0].phase_markers.clear();
  for (ReportedFinding& f : job.report.processes[0].findings) f.finding.phase_index = -1;
  text = render(job.report);
  EXPECT_NE(text.find("   steps: 118 steady steps of 409 calls, 3.10 ms each; host blocked 655.0 µs per step\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("[eval]"), std::string::npos);
}

TEST(Layout, WaiterAttributionPeriodicSitesAndPhaseNames) {
  JobFixture job;
  std::string text = render(job.report);
  EXPECT_NE(text.find("   #2 hidden-sync  train_loop.py:13  loss.backward()  [train]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("on thread 4260 (pt_autograd_0), no Python; waited for at train_loop.py:13 loss.backward()\n"),
            std::string::npos)
      << text;
  // A periodic site by its bursts: how many calls each time, every how many steps.
  EXPECT_NE(text.find("12 calls, 1 call every 10 steps, 61.0 µs host blocked each time"), std::string::npos) << text;
  // The print's Python frames start at the user's line, not inside torch's formatting.
  size_t print = text.find("   #3 hidden-sync  train_loop.py:17");
  ASSERT_NE(print, std::string::npos) << text;
  EXPECT_EQ(text.find("_tensor_str.py"), std::string::npos);
  EXPECT_NE(text.find("   #4 pageable-copy  train_loop.py:9  x = x.cuda(non_blocking=True)  [eval]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("9 calls, 0.75 per step, 11.0 µs host blocked per step (<1% of step time)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("cudaMemcpyAsync(H2D); 132.0 µs host blocked in all, in 9 of 12 steps, 72.0 KiB"),
            std::string::npos)
      << text;
}

// A checkpoint once in 118 steps: counted in the steps it happened in and in
// all, not as a small cost every step.
TEST(Layout, OneOffWorkIsCountedInStepsNotPerStep) {
  JobFixture job;
  ProcessReport& p = job.report.processes[0];
  ReportedFinding save = p.findings[0];
  save.finding = finding(Category::kHiddenSync, Phase::kSteady, "cudaMemcpyAsync(D2H)+cudaStreamSynchronize", 156,
                         156.0 / 118, 126.8, 0.04, kReadBackHint);
  save.finding.phase_index = 0;
  save.finding.steps_with = 1;
  save.finding.host_blocked_ns = 14960000;
  p.findings.push_back(save);
  std::string text = render(job.report);
  EXPECT_NE(text.find("156 calls in 1 of 118 steps, 14.96 ms host blocked in all\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("1.32 per step"), std::string::npos) << text;
}

TEST(Layout, DetailsAndFullFramesAreAskedFor) {
  JobFixture job;
  std::string text = render(job.report);
  EXPECT_EQ(text.find("   API "), std::string::npos);
  EXPECT_NE(text.find("(--details adds the API table"), std::string::npos);
  TextReportOptions options;
  options.details = true;
  text = render(job.report, options);
  EXPECT_NE(text.find("   API "), std::string::npos);
  EXPECT_LT(text.find("   #1 hidden-sync"), text.find("   API "));  // after the findings
  EXPECT_EQ(text.find("(--details adds"), std::string::npos);
  options.full_frames = true;
  text = render(job.report, options);
  EXPECT_NE(text.find(std::string(kWrapLocalScalarDense) + "+0x1f (libtorch_cuda.so)"), std::string::npos);
  EXPECT_EQ(text.find("dispatcher frames"), std::string::npos);
  EXPECT_EQ(text.find("more (--full-frames)"), std::string::npos);
  // Every Python frame too, an installed package's file named from its package.
  EXPECT_NE(text.find("py torch/_tensor_str.py:142"), std::string::npos) << "every Python frame too";
}

TEST(Layout, OutsideSteadyStateIsOneRowPerCategoryAndLine) {
  JobFixture job;
  std::vector<OutsideRow> rows = summarize_outside_steady(job.report.processes[0]);
  ASSERT_EQ(rows.size(), 4u);
  // train_loop.py:15 in warm-up and teardown is one row; most host time first.
  const OutsideRow* item = nullptr;
  for (const OutsideRow& r : rows) {
    if (r.category == Category::kHiddenSync && r.site == "train_loop.py:15") item = &r;
  }
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->warmup_calls, 2u);
  EXPECT_EQ(item->teardown_calls, 1u);
  EXPECT_EQ(item->host_ns, 60000u);
  EXPECT_EQ(item->source, "running = loss.item()");
  EXPECT_EQ(rows[0].site, "train_loop.py:9");  // 40 calls, the most time
  EXPECT_EQ(rows[0].category, Category::kPageableCopy);
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_GE(rows[i - 1].host_ns, rows[i].host_ns);
  bool unknown = false;
  for (const OutsideRow& r : rows) unknown |= r.site == "cudaDeviceSynchronize";
  EXPECT_TRUE(unknown) << "a site without a user frame is named by its calls";

  std::ostringstream table;
  render_outside_table(rows, 2, table);
  EXPECT_NE(table.str().find("     … 2 more sites (--details lists them all)\n"), std::string::npos) << table.str();
  std::string text = render(job.report);
  std::regex row(R"(\n     hidden-sync +train_loop.py:15  running = loss.item\(\) +2 +1 +60.0 µs\n)");
  EXPECT_TRUE(std::regex_search(text, row)) << text;
  // Suppressed findings stay out of it.
  for (ReportedFinding& f : job.report.processes[0].findings) {
    if (f.finding.phase != Phase::kSteady) f.suppressed_by = 0;
  }
  EXPECT_TRUE(summarize_outside_steady(job.report.processes[0]).empty());
}

}  // namespace
}  // namespace syncscope::testing
