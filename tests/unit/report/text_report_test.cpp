#include "report/text_report.h"

#include <gtest/gtest.h>

#include "trace/process_info_keys.h"

#include <sstream>

#include "tests/unit/report/report_test_util.h"
#include "trace/gpu_record.h"

namespace syncscope::testing {
namespace {

void render_traces(const std::vector<ProcessTrace>& traces, const TextReportOptions& options, std::ostream& out) {
  const std::vector<AnalysedTrace> analysed_traces = analysed(traces);
  Report report = build_report(analysed_traces, ReportOptions{});
  render_text_report(report, options, out);
}

std::string render(const std::vector<ProcessTrace>& traces, bool details = false) {
  std::ostringstream out;
  TextReportOptions options;
  options.details = details;
  render_traces(traces, options, out);
  return out.str();
}

TEST(TextReport, ProcessHeaderTableAndStacks) {
  std::string text = render({sample_trace()}, true);
  EXPECT_NE(text.find("== process 321: ./train --steps 2"), std::string::npos) << text;
  EXPECT_NE(text.find("6 CUDA calls (3 launches)"), std::string::npos) << text;
  // Table rows ranked by host time, with units.
  size_t table = text.find("   API ");
  ASSERT_NE(table, std::string::npos) << text;
  size_t sync = text.find("cudaStreamSynchronize", table);
  size_t copy = text.find("cudaMemcpyAsync", table);
  size_t launch = text.find("__cudaLaunchKernel", table);
  ASSERT_NE(sync, std::string::npos);
  EXPECT_LT(sync, copy);
  EXPECT_LT(copy, launch);
  EXPECT_NE(text.find("200.0 µs"), std::string::npos) << text;
  EXPECT_NE(text.find("1.00 MiB"), std::string::npos) << text;
  EXPECT_NE(text.find("H2D 1, pageable 1"), std::string::npos) << text;
  EXPECT_NE(text.find("#1 cudaStreamSynchronize: 2 calls, 200.0 µs"), std::string::npos) << text;
  EXPECT_EQ(text.find("SIMULATED"), std::string::npos);
  EXPECT_EQ(text.find("dropped"), std::string::npos);
}

TEST(TextReport, SaysSimulatedDroppedAndIncomplete) {
  ProcessTrace t = sample_trace();
  t.process_info[1].second = "fake (simulated GPU)";
  t.events_dropped = 17;
  t.complete = false;
  t.truncation = "no end record (process killed or still running)";
  std::string text = render({t});
  EXPECT_NE(text.find("GPU: SIMULATED"), std::string::npos) << text;
  EXPECT_NE(text.find("dropped events: 17"), std::string::npos) << text;
  EXPECT_NE(text.find("trace incomplete: no end record"), std::string::npos) << text;
}

TEST(TextReport, ProcessesWithoutCudaAreCountedNotListed) {
  ProcessTrace empty;
  empty.header.pid = 99;
  empty.complete = true;
  std::string text = render({sample_trace(), empty, empty});
  EXPECT_EQ(text.find("process 99"), std::string::npos);
  EXPECT_NE(text.find("2 processes without CUDA calls not shown"), std::string::npos) << text;
  EXPECT_NE(render({sample_trace(), empty}).find("1 process without CUDA calls not shown"), std::string::npos);
  EXPECT_NE(render({empty}).find("no CUDA calls were recorded"), std::string::npos);
  // No event and no end record: it called CUDA and ended before a flush
  // (a worker's _exit); counted apart, never as "without CUDA".
  ProcessTrace cut = empty;
  cut.complete = false;
  text = render({sample_trace(), cut});
  EXPECT_NE(text.find("1 process ended before any of its calls were written"), std::string::npos) << text;
  EXPECT_EQ(text.find("without CUDA calls"), std::string::npos) << text;
}

TEST(TextReport, ProcessWhoseEveryCallWasDroppedIsShown) {
  ProcessTrace t;
  t.header.pid = 77;
  t.process_info = {{"exe", "/usr/bin/python3"}};
  t.events_dropped = 5;
  t.complete = true;
  std::string text = render({t});
  EXPECT_NE(text.find("== process 77: /usr/bin/python3"), std::string::npos) << text;
  EXPECT_NE(text.find("dropped events: 5 (ring full"), std::string::npos) << text;
  EXPECT_EQ(text.find("without CUDA calls"), std::string::npos) << text;
}

// The top stacks (--details): symbolised frames, the recorder's own frames left out, at most max_frames.
TEST(TextReport, StackFramesSkipTheRecorderAndAreCapped) {
  ProcessTrace t = sample_trace();
  t.modules = {{0x1000, 0x2000, 0x1000, "/opt/syncscope/lib/libsyncscope.so", ""},
               {0x5000, 0x6000, 0x5000, "/nonexistent/libapp.so", ""}};
  t.stacks[1] = {0x1100, 0x1200};
  for (int i = 0; i < 20; ++i) t.stacks[1].push_back(0x5000 + 0x10 * i);
  std::ostringstream out;
  TextReportOptions options;
  options.max_frames = 3;
  options.top_stacks = 1;
  options.details = true;
  render_traces({t}, options, out);
  std::string text = out.str();
  size_t top = text.find("top call sites by host time:");
  ASSERT_NE(top, std::string::npos) << text;
  std::string sites = text.substr(top);
  EXPECT_NE(sites.find("#1 cudaStreamSynchronize: 2 calls"), std::string::npos) << sites;
  EXPECT_EQ(sites.find("libsyncscope.so"), std::string::npos) << sites;
  EXPECT_NE(sites.find("        libapp.so+0x0\n        libapp.so+0x10\n        libapp.so+0x20\n"), std::string::npos)
      << sites;
  EXPECT_EQ(sites.find("libapp.so+0x30"), std::string::npos) << sites;
  EXPECT_NE(sites.find("        … 17 more (--full-frames)\n"), std::string::npos) << sites;
  EXPECT_EQ(sites.find("#2 "), std::string::npos) << sites;  // --top 1
}

}  // namespace
}  // namespace syncscope::testing

namespace syncscope::testing {
namespace {

TEST(TextReport, ColourOnlyWhenAsked) {
  ProcessTrace t = sample_trace();
  // Ten steps of a launch and a sync so there is a steady finding to colour.
  t.events.clear();
  for (int i = 0; i < 10; ++i) {
    t.events.push_back(event(ApiId::__cudaLaunchKernel, 1000000 + i * 100000, 5));
    t.events.push_back(event(ApiId::cudaStreamSynchronize, 1000000 + i * 100000 + 100, 50000, 1));
  }
  t.thread_names[0] = "pt_autograd_0";
  std::ostringstream plain, coloured;
  TextReportOptions options;
  render_traces({t}, options, plain);
  options.color = true;
  render_traces({t}, options, coloured);
  EXPECT_EQ(plain.str().find("\033["), std::string::npos);
  EXPECT_NE(coloured.str().find("\033[1;31mhidden-sync\033[0m"), std::string::npos) << coloured.str();
  // A thread without Python frames is named; "no Python" only where the process has Python.
  EXPECT_NE(plain.str().find("      on thread 0 (pt_autograd_0)\n"), std::string::npos) << plain.str();
}

// 30 steps of 3 launches 20 us apart, each kernel 4 us: the GPU waits on
// the host issuing work.
ProcessTrace launch_bound_trace(bool with_timeline) {
  ProcessTrace t;
  t.header.pid = 77;
  t.complete = true;
  t.process_info = {{"argv", "./tiny_kernels"}, {"cuda_runtime", "real"}};
  for (int step = 0; step < 30; ++step) {
    for (int i = 0; i < 3; ++i) {
      const uint64_t start = 1000000 + step * 60000 + i * 20000;
      Event e = event(ApiId::__cudaLaunchKernel, start, 8000);
      e.flags |= kFlagAsync;
      e.stream = 0x100;
      e.dst = static_cast<uint64_t>(i + 1);
      e.tid = 7;
      t.events.push_back(e);
      if (!with_timeline) continue;
      GpuActivity a;
      static_cast<GpuRecord&>(a) = GpuRecord{};
      a.kind = static_cast<uint8_t>(GpuKind::kKernel);
      a.start_ns = start + 10000;
      a.end_ns = start + 14000;
      a.event_index = static_cast<int64_t>(t.events.size()) - 1;
      a.stream = 0x100;
      t.gpu_activity.push_back(a);
    }
  }
  return t;
}

TEST(TextReport, GpuLineAndLaunchBound) {
  std::string text = render({launch_bound_trace(true)});
  EXPECT_NE(text.find("   GPU: 20% busy per "), std::string::npos) << text;
  EXPECT_NE(text.find("idle 80%: 80% launching"), std::string::npos) << text;
  EXPECT_NE(text.find("   launch-bound: "), std::string::npos) << text;
  // Without a timeline, neither.
  std::string host_only = render({launch_bound_trace(false)});
  EXPECT_EQ(host_only.find("   GPU: "), std::string::npos) << host_only;
  EXPECT_EQ(host_only.find("launch-bound"), std::string::npos) << host_only;
}

TEST(TextReport, SaysWhyTheTimelineIsOffOnlyWhenAskedFor) {
  ProcessTrace taken = launch_bound_trace(false);
  taken.process_info.emplace_back(info_key::kGpuTimeline, "off: CUPTI is in use by another tool (torch.profiler)");
  std::string text = render({taken});
  EXPECT_NE(text.find("   GPU: timeline off: CUPTI is in use by another tool (torch.profiler); host timing only"),
            std::string::npos)
      << text;
  ProcessTrace not_asked = launch_bound_trace(false);
  not_asked.process_info.emplace_back(info_key::kGpuTimeline, std::string("off: ") + info_key::kGpuTimelineNotAskedFor);
  std::string quiet = render({not_asked});
  EXPECT_EQ(quiet.find("timeline off"), std::string::npos) << quiet;
}

}  // namespace
}  // namespace syncscope::testing
