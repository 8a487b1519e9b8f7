// The HTML page (report/html_report.h) of the two-rank job
// (tests/unit/report/two_rank_job.h): self-contained, everything from the
// trace escaped, the findings' lines and hints, per-step bars of GPU time by
// cause (host time, and why, without a timeline), device memory over time.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include "report/device_memory.h"
#include "report/html_escape.h"
#include "tests/unit/report/two_rank_job.h"

namespace syncscope::testing {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

std::string render(std::vector<ProcessTrace> traces) {
  const std::vector<AnalysedTrace> analysed_traces = analysed(traces, two_rank_policy().steps);
  Report report = build_report(analysed_traces, two_rank_policy());
  return html_report(report);
}

void expect_self_contained(const std::string& html) {
  for (const char* outside : {"http", "<script", "<link", "src=", "href=", "@import", "url("}) {
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
  }
  for (const char* tag : {"section", "details", "svg", "ol", "dl", "table", "li", "p"}) {
    EXPECT_EQ(count(html, "<" + std::string(tag) + ">") + count(html, "<" + std::string(tag) + " "),
              count(html, "</" + std::string(tag) + ">"))
        << tag;
  }
}

TEST(Html, ShowsTheFindingsLinesHintsAndStacks) {
  const std::string html = render({rank_trace(0), rank_trace(1)});
  expect_self_contained(html);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>syncscope report: python3 train.py</title>"), std::string::npos);
  EXPECT_NE(html.find("rank 0 (pid 1000)"), std::string::npos);
  EXPECT_NE(html.find("rank 1 (pid 1001)"), std::string::npos);
  EXPECT_NE(html.find("<code class=\"where\">train.py:6</code> <code class=\"src\">value = loss.item()</code>"),
            std::string::npos);
  EXPECT_NE(html.find("a device value is read on the host"), std::string::npos);
  EXPECT_NE(html.find("cudaMemcpyAsync(D2H)+cudaStreamSynchronize"), std::string::npos);
  EXPECT_NE(html.find("<details><summary>stack"), std::string::npos);
  EXPECT_NE(html.find("py train.py:6 step"), std::string::npos);
  // Rank 1's native syncs are findings of their own; train.py:7 is suppressed.
  EXPECT_EQ(count(html, "class=\"finding\""), 3u);
  EXPECT_NE(html.find("2 suppressed findings"), std::string::npos);  // in warm-up and in steady state
  EXPECT_NE(html.find("gate: FAIL"), std::string::npos);
  EXPECT_NE(html.find("Across processes"), std::string::npos);
}

TEST(Html, WithoutATimelineShowsHostTimePerStepAndSaysWhy) {
  const std::string html = render({rank_trace(0)});
  EXPECT_NE(html.find("host blocked per step</h3>"), std::string::npos);
  EXPECT_NE(html.find("GPU timeline not recorded (syncscope run --gpu-timeline records one)"), std::string::npos);
  ProcessTrace off = rank_trace(0);
  off.process_info.emplace_back("gpu_timeline", "off: libcupti.so.13 not found");
  const std::string why = render({off});
  EXPECT_NE(why.find("GPU timeline off: libcupti.so.13 not found"), std::string::npos);
}

TEST(Html, WithATimelineSplitsEachStepIntoBusyAndIdleByCause) {
  const std::vector<AnalysedTrace> traces = analysed({rank_trace_with_gpu(0)}, two_rank_policy().steps);
  const Report report = build_report(traces, two_rank_policy());
  const std::string html = html_report(report);
  expect_self_contained(html);
  EXPECT_NE(html.find("GPU busy and idle by cause, per step"), std::string::npos);
  EXPECT_NE(html.find("idle: sync"), std::string::npos);
  EXPECT_NE(html.find("GPU idle per step"), std::string::npos);
  EXPECT_EQ(html.find("GPU timeline not recorded"), std::string::npos);
  // A bar (a <g> with its <title>) per steady step.
  EXPECT_EQ(count(html, "<g><title>"), report.processes[0].analysis.phases[0].steps);
}

TEST(Html, EscapesEverythingFromTheTrace) {
  ProcessTrace t = rank_trace(0);
  t.process_info[0].second = "python3 <script>alert('x')</script> & \xc3\x28";
  t.python_code[1].file = "<b>tr&in</b>.py";
  const std::string html = render({t});
  expect_self_contained(html);
  EXPECT_NE(html.find("python3 &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; \xef\xbf\xbd("),
            std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;tr&amp;in&lt;/b&gt;.py:6"), std::string::npos);
  EXPECT_EQ(html.find("<b>tr"), std::string::npos);
}

TEST(Html, DrawsDeviceMemoryWhenAllocationsWereRecorded) {
  ProcessTrace t = rank_trace(0);
  Event malloc = event(ApiId::cudaMalloc, 1000500, 100);
  malloc.bytes = 3 << 20;
  malloc.dst = 0x7000;
  Event free = event(ApiId::cudaFree, 3000500, 100);
  free.dst = 0x7000;
  t.events.insert(t.events.begin() + 1, malloc);
  t.events.push_back(free);
  std::stable_sort(t.events.begin(), t.events.end(),
                   [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; });
  const std::string html = render({t});
  EXPECT_NE(html.find("<h3>Device memory</h3>"), std::string::npos);
  EXPECT_NE(html.find("peak 3.00 MiB"), std::string::npos);
  EXPECT_EQ(render({rank_trace(0)}).find("Device memory"), std::string::npos);
}

TEST(HtmlEscape, EscapesMarkupAndReplacesBadUtf8) {
  EXPECT_EQ(html_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(html_escape("µs … ok"), "µs … ok");
  EXPECT_EQ(html_escape("\xff"), "\xef\xbf\xbd");
  EXPECT_EQ(html_escape("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");                  // overlong '/'
  EXPECT_EQ(html_escape("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate
  EXPECT_EQ(html_escape("\xe2\x82"), "\xef\xbf\xbd\xef\xbf\xbd");                  // cut short
}

// JUnit's XML: the same, and the control characters XML 1.0 forbids dropped
// (a JUnit file with \x01 or \xff in it is refused by CI servers' parsers).
TEST(XmlEscape, EscapesMarkupReplacesBadUtf8AndDropsControls) {
  EXPECT_EQ(xml_escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
  EXPECT_EQ(xml_escape("x\xffy"), "x\xef\xbf\xbdy");
  EXPECT_EQ(xml_escape(std::string("t\x01\tn\n\x1b", 7)), "t\tn\n");
  EXPECT_EQ(html_escape(std::string("\x01", 1)), std::string("\x01", 1)) << "HTML keeps them";
}

TEST(DeviceMemory, FollowsAllocationsFreesAndMappings) {
  ProcessTrace t;
  auto add = [&](ApiId api, uint64_t at, uint64_t bytes, uint64_t dst, bool failed = false) {
    Event e = event(api, at, 10);
    e.bytes = bytes;
    e.dst = dst;
    if (failed) e.flags |= kFlagError;
    t.events.push_back(e);
  };
  add(ApiId::cudaMalloc, 100, 1 << 20, 0xa000);
  add(ApiId::cudaMalloc, 200, 2 << 20, 0xb000);
  add(ApiId::cudaMalloc, 250, 8 << 20, 0, true);  // failed: nothing allocated
  add(ApiId::cudaFree, 300, 0, 0xa000);
  add(ApiId::cudaFree, 400, 0, 0xc000);  // allocated before the recording
  add(ApiId::cuMemMap, 500, 4 << 20, 0xd000);
  add(ApiId::cuMemUnmap, 600, 4 << 20, 0xd000);
  add(ApiId::cudaFree, 700, 0, 0);  // cudaFree(nullptr)
  const DeviceMemory m = device_memory(t);
  ASSERT_EQ(m.points.size(), 5u);
  EXPECT_EQ(m.points[0].bytes, 1u << 20);
  EXPECT_EQ(m.points[0].ns, 110u);
  EXPECT_EQ(m.points[1].bytes, 3u << 20);
  EXPECT_EQ(m.points[2].bytes, 2u << 20);
  EXPECT_EQ(m.points[3].bytes, 6u << 20);
  EXPECT_EQ(m.points[4].bytes, 2u << 20);
  EXPECT_EQ(m.peak, 6u << 20);
  EXPECT_EQ(m.unknown_frees, 1u);
}

}  // namespace
}  // namespace syncscope::testing
