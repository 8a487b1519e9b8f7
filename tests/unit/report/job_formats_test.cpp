// Phases, periodic sites and the waiting Python line in the machine-read
// formats (JSON, SARIF, GitHub annotations) of a PyTorch job
// (tests/unit/report/pytorch_job.h), and the site frames that pick the
// waiting thread's line.
#include <gtest/gtest.h>

#include <algorithm>

#include "report/github_report.h"
#include "report/json_report.h"
#include "report/sarif_report.h"
#include "tests/unit/report/pytorch_job.h"

namespace syncscope::testing {
namespace {

TEST(JobFormats, JsonCarriesPhasesPeriodsAndTheWaiter) {
  JobFixture job;
  nlohmann::json json = findings_json(job.report);
  const nlohmann::json& process = json["processes"][0];
  ASSERT_EQ(process["phases"].size(), 2u);
  EXPECT_EQ(process["phases"][0]["name"], "train");
  EXPECT_EQ(process["phases"][0]["source"], "optimizer-step");
  EXPECT_EQ(process["phases"][0]["steps"], 118);
  EXPECT_EQ(process["phases"][0]["calls_per_step"], 409);
  EXPECT_DOUBLE_EQ(process["phases"][0]["step_time_us"].get<double>(), 3100);
  EXPECT_EQ(process["phases"][0]["interrupted_steps"], 2);
  EXPECT_EQ(process["phases"][0]["marker"]["line"], 14);
  EXPECT_EQ(process["phases"][0]["marker"]["source"], "optimizer.step()");
  EXPECT_EQ(process["phases"][1]["source"], "pattern");
  EXPECT_TRUE(process["phases"][1]["marker"].is_null());

  const nlohmann::json& findings = process["findings"];
  EXPECT_EQ(findings[0]["phase_name"], "train");
  EXPECT_EQ(findings[0]["steps_with"], 118);
  EXPECT_EQ(findings[0]["user_frame"]["attributed"], "site");
  EXPECT_TRUE(findings[0]["waiter"].is_null());
  const nlohmann::json& backward = findings[1];
  EXPECT_EQ(backward["user_frame"]["attributed"], "waiter");
  EXPECT_EQ(backward["user_frame"]["line"], 13);
  EXPECT_EQ(backward["user_frame"]["source"], "loss.backward()");
  EXPECT_EQ(backward["thread"]["name"], "pt_autograd_0");
  EXPECT_EQ(backward["waiter"]["tid"], 4242);
  EXPECT_EQ(backward["waiter"]["python"][0]["line"], 13);
  EXPECT_TRUE(backward["site"]["python"].empty());
  EXPECT_EQ(findings[2]["every_n_steps"], 10);
  EXPECT_EQ(findings[3]["phase_name"], "eval");
  EXPECT_TRUE(findings[4]["phase_name"].is_null());  // warm-up belongs to no phase
  EXPECT_TRUE(findings[7]["user_frame"].is_null());

  // The CI formats place the autograd thread's finding at the waiting line.
  nlohmann::json sarif = findings_sarif(job.report);
  const nlohmann::json& location = sarif["runs"][0]["results"][1]["locations"][0]["physicalLocation"];
  EXPECT_EQ(location["region"]["startLine"], 13);
  EXPECT_EQ(location["artifactLocation"]["uri"], "train_loop.py");
  for (ReportedFinding& f : job.report.processes[0].findings) f.counted = f.finding.phase == Phase::kSteady;
  std::string github = findings_github(job.report, kGolden);
  EXPECT_NE(github.find("file=train_loop.py,line=13,"), std::string::npos) << github;
}

// Site frames from a trace: an event on a thread without Python takes the
// waiting thread's line; one with its own Python line keeps it.
TEST(JobFormats, WaiterStackIsTheUserFrameWhenTheSiteHasNoPython) {
  ProcessTrace t;
  t.process_info = {{"cwd", kGolden}};
  t.python_code[1] = {"train_loop.py", "train", 6};
  t.stacks[5] = {0x10};
  t.stacks[6] = {0x20};
  t.python_stacks[6] = {{1, 13}};
  t.python_stacks[8] = {{1, 15}};
  Symbolizer symbolizer(t);
  Finding f;
  f.stack_id = 5;
  f.waiter_stack_id = 6;
  f.waiter_tid = 4242;
  SiteFrames site = finding_site_frames(t, f, symbolizer);
  EXPECT_TRUE(site.user_from_waiter);
  ASSERT_TRUE(site.has_user);
  EXPECT_EQ(site.user.line, 13u);
  EXPECT_EQ(site.user.source, "loss.backward()");
  EXPECT_TRUE(site.python.empty());
  ASSERT_EQ(site.waiter_python.size(), 1u);
  EXPECT_EQ(site.waiter_tid, 4242u);
  std::vector<std::string> match = site_match_strings(site);
  EXPECT_NE(std::find(match.begin(), match.end(), "train_loop.py:13"), match.end());

  f.stack_id = 8;  // its own Python line
  site = finding_site_frames(t, f, symbolizer);
  EXPECT_FALSE(site.user_from_waiter);
  EXPECT_EQ(site.user.line, 15u);
  EXPECT_EQ(site.waiter_python.size(), 1u);
  f.waiter_stack_id = 0;  // no waiter: as before
  f.stack_id = 5;
  site = finding_site_frames(t, f, symbolizer);
  EXPECT_FALSE(site.has_user);
  EXPECT_EQ(site.waiter_tid, 0u);
}

}  // namespace
}  // namespace syncscope::testing
