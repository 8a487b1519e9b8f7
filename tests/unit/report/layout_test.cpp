// The text layout of a PyTorch job, from a report built by hand (so the
// detectors' results do not move it): the user line first, folded frames,
// a finding made on autograd's thread attributed to the line that waited,
// a periodic site, phases in the header, the warm-up table. The golden
// expected_layout.txt is what a person reads; SYNCSCOPE_UPDATE_GOLDEN=1
// rewrites it. The JSON, SARIF and GitHub outputs of the same report carry
// the phase and waiter fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "report/github_report.h"
#include "report/json_report.h"
#include "report/outside_summary.h"
#include "report/sarif_report.h"
#include "report/source_paths.h"
#include "report/text_layout.h"
#include "report/text_report.h"
#include "tests/unit/report/pytorch_frames.h"
#include "tests/unit/report/report_test_util.h"

namespace syncscope::testing {
namespace {

const std::string kGolden = std::string(SYNCSCOPE_SOURCE_DIR) + "/tests/unit/report/golden";
const std::string kTorch = "/venv/lib/python3.10/site-packages/torch/";

PythonSiteFrame py(const std::string& file, uint32_t line, const std::string& function) {
  return PythonSiteFrame{file, line, function};
}

// The frames of train_loop.py's call chain, innermost first, from `line` in train().
std::vector<PythonSiteFrame> script_frames(uint32_t line) {
  return {py("train_loop.py", line, "train"), py("train_loop.py", 25, "main"), py("train_loop.py", 29, "<module>")};
}

UserFrame user_line(const PythonSiteFrame& f) {
  return UserFrame{f.file, f.line, f.function, source_line(kGolden + "/" + f.file, f.line), true};
}

SiteFrames python_site(std::vector<PythonSiteFrame> python, std::vector<Frame> native) {
  SiteFrames site;
  site.python = std::move(python);
  site.native = std::move(native);
  for (const PythonSiteFrame& f : site.python) {
    if (is_library_python_file(f.file)) continue;
    site.has_user = true;
    site.user = user_line(f);
    break;
  }
  return site;
}

Finding finding(Category category, Phase phase, const std::string& api_sequence, uint64_t count, double per_step,
                double blocked_us_per_step, double share, const std::string& hint) {
  Finding f;
  f.category = category;
  f.phase = phase;
  f.api_sequence = api_sequence;
  f.api = api_sequence.substr(api_sequence.rfind('+') + 1);
  f.count = count;
  f.per_step = per_step;
  f.blocked_ns_per_step = blocked_us_per_step * 1e3;
  f.host_blocked_ns = static_cast<uint64_t>(count * (per_step > 0 ? blocked_us_per_step * 1e3 / per_step : 20e3));
  f.step_share = share;
  f.hint = hint;
  f.tid = 4242;
  return f;
}

const char* kReadBackHint =
    "a device value is read on the host (.item(), print(tensor), if tensor:, bool(), nonzero, masked indexing, "
    ".cpu()): keep it on the GPU and read it every N steps, or copy it non_blocking into pinned memory and read it a "
    "step later";

struct JobFixture {
  ProcessTrace trace;
  Report report;

  JobFixture() {
    trace.header.pid = 4242;
    trace.complete = true;
    trace.process_info = {{"argv", "python3 train_loop.py"}, {"cuda_runtime", "real"}, {"cwd", kGolden}};
    trace.thread_names = {{4242, "python3"}, {4260, "pt_autograd_0"}};
    trace.python_code[1] = {"train_loop.py", "train", 6};
    trace.events.push_back(event(ApiId::cudaStreamSynchronize, 1000, 500000, 1));

    ProcessReport p;
    p.trace = &trace;
    p.symbolizer = std::make_shared<Symbolizer>(trace);
    p.summary.events = 61234;
    p.summary.launches = 48211;
    p.summary.wall_ns = 412'000'000;
    p.summary.host_ns_in_cuda = 96'400'000;
    ApiStats sync;
    sync.api = static_cast<uint16_t>(ApiId::cudaStreamSynchronize);
    sync.calls = 262;
    sync.total_ns = 74'000'000;
    sync.max_ns = 2'100'000;
    p.summary.apis = {sync};

    Analysis& a = p.analysis;
    a.steps.detected = true;
    a.steps.steps = 118;
    a.steps.period_calls = 409;
    a.steps.step_ns = 3.1e6;
    a.blocked_ns_per_step = 655e3;
    PhaseInfo train{"train", StepSource::kOptimizerStep, 118, 409, 3.1e6, 0, 0, 2, 9};
    PhaseInfo eval{"eval", StepSource::kPattern, 12, 40, 8.1e6, 0, 0, 0, 0};
    a.phases = {train, eval};
    p.phase_markers = {user_line(py("train_loop.py", 14, "train")), std::nullopt};

    // 1. loss.item() every step.
    ReportedFinding item;
    item.finding = finding(Category::kHiddenSync, Phase::kSteady, "cudaMemcpyAsync(D2H)+cudaStreamSynchronize", 118,
                           1.0, 520, 0.168, kReadBackHint);
    item.finding.phase_index = 0;
    item.finding.steps_with = 118;
    item.finding.bytes = 472;
    item.site = python_site(script_frames(15), item_stack());
    // 2. embedding's backward reads back on pt_autograd_0 while the main thread waits in loss.backward().
    ReportedFinding backward;
    backward.finding = finding(Category::kHiddenSync, Phase::kSteady, "cudaMemcpyAsync(D2H)+cudaStreamSynchronize",
                               118, 1.0, 95, 0.031, kReadBackHint);
    backward.finding.tid = 4260;
    backward.finding.phase_index = 0;
    backward.finding.steps_with = 118;
    backward.finding.waiter_stack_id = 7;
    backward.finding.waiter_tid = 4242;
    backward.site.native = embedding_backward_stack();
    backward.site.waiter_tid = 4242;
    backward.site.waiter_python = script_frames(13);
    backward.site.has_user = true;
    backward.site.user = user_line(backward.site.waiter_python[0]);
    backward.site.user_from_waiter = true;
    // 3. print(f"... {loss}") every 10 steps, inside torch's tensor formatting.
    ReportedFinding print;
    print.finding = finding(Category::kHiddenSync, Phase::kSteady, "cudaMemcpyAsync(D2H)+cudaStreamSynchronize", 12,
                            0.1, 6.1, 0.002, kReadBackHint);
    print.finding.phase_index = 0;
    print.finding.steps_with = 12;
    print.finding.every_n_steps = 10;
    std::vector<PythonSiteFrame> print_frames = {py(kTorch + "_tensor_str.py", 142, "_tensor_str_with_formatter"),
                                                 py(kTorch + "_tensor.py", 1032, "__format__")};
    for (const PythonSiteFrame& f : script_frames(17)) print_frames.push_back(f);
    print.site = python_site(print_frames, item_stack());
    // 4. the eval pass copies batches from pageable memory, in 9 of its 12 steps.
    ReportedFinding eval_copy;
    eval_copy.finding = finding(Category::kPageableCopy, Phase::kSteady, "cudaMemcpyAsync(H2D)", 9, 0.75, 11, 0.001,
                                "pin the host memory (pin_memory=True in the DataLoader) so the copy can be async");
    eval_copy.finding.phase_index = 1;
    eval_copy.finding.steps_with = 9;
    eval_copy.finding.bytes = 9 * 8192;
    eval_copy.site = python_site(script_frames(9), {frame("at::native::copy_(at::Tensor&, at::Tensor const&, bool)",
                                                          "libtorch_cpu.so")});
    p.findings = {item, backward, print, eval_copy};

    // Warm-up and teardown: the same lines once or twice, model setup, an unknown site.
    auto outside = [&](Category c, Phase phase, const std::string& apis, uint64_t count, SiteFrames site) {
      ReportedFinding r;
      r.finding = finding(c, phase, apis, count, 0, 0, 0, "");
      r.site = std::move(site);
      p.findings.push_back(std::move(r));
    };
    outside(Category::kHiddenSync, Phase::kWarmup, "cudaMemcpyAsync(D2H)+cudaStreamSynchronize", 2,
            python_site(script_frames(15), {}));
    outside(Category::kHiddenSync, Phase::kTeardown, "cudaMemcpyAsync(D2H)+cudaStreamSynchronize", 1,
            python_site(script_frames(15), {}));
    outside(Category::kAllocatorChurn, Phase::kWarmup, "cudaMalloc", 14,
            python_site({py(kTorch + "nn/modules/module.py", 1160, "convert"), py("train_loop.py", 22, "main")}, {}));
    outside(Category::kHiddenSync, Phase::kWarmup, "cudaDeviceSynchronize", 3, SiteFrames{});
    outside(Category::kPageableCopy, Phase::kWarmup, "cudaMemcpy(H2D)", 40, python_site(script_frames(9), {}));
    report.processes.push_back(std::move(p));
  }
};

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
  EXPECT_NE(text.find("12 calls, every 10 steps (0.10 per step)"), std::string::npos) << text;
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
  EXPECT_NE(text.find("py " + kTorch + "_tensor_str.py:142"), std::string::npos) << "every Python frame too";
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

TEST(Layout, JsonCarriesPhasesPeriodsAndTheWaiter) {
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
TEST(Layout, WaiterStackIsTheUserFrameWhenTheSiteHasNoPython) {
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
