// The Perfetto / Chrome trace (report/perfetto_report.h) of the two-rank job
// (tests/unit/report/two_rank_job.h), parsed back: valid JSON whatever the
// strings hold, events in time order, a track per thread, per GPU stream and
// per phase's steps, the findings as instant events where they happened, and
// the bound on the file's size.
#include "report/perfetto_report.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/unit/report/two_rank_job.h"

namespace syncscope::testing {
namespace {

using json = nlohmann::json;

struct Rendered {
  std::vector<AnalysedTrace> traces;
  Report report;
  json trace;
  Rendered(const std::vector<ProcessTrace>& t, PerfettoOptions options = {})
      : traces(analysed(t, two_rank_policy().steps)), report(build_report(traces, two_rank_policy())) {
    trace = json::parse(perfetto_trace(report, options));  // throws on invalid JSON or UTF-8
  }
  std::vector<json> events(const std::string& ph) const {
    std::vector<json> out;
    for (const json& e : trace["traceEvents"]) {
      if (e["ph"] == ph) out.push_back(e);
    }
    return out;
  }
  // Names given by metadata events: (pid, tid) -> name; tid -1 for processes.
  std::map<std::pair<int64_t, int64_t>, std::string> names() const {
    std::map<std::pair<int64_t, int64_t>, std::string> out;
    for (const json& e : events("M")) {
      if (e["name"] == "process_name") out[{e["pid"], -1}] = e["args"]["name"];
      if (e["name"] == "thread_name") out[{e["pid"], e["tid"]}] = e["args"]["name"];
    }
    return out;
  }
};

Rendered with_gpu() { return Rendered({rank_trace_with_gpu(0), rank_trace_with_gpu(1)}); }

TEST(Perfetto, IsTraceEventJsonInTimeOrder) {
  Rendered r = with_gpu();
  EXPECT_EQ(r.trace["displayTimeUnit"], "ns");
  ASSERT_TRUE(r.trace["traceEvents"].is_array());
  bool timeline = false;
  double last = -1;
  for (const json& e : r.trace["traceEvents"]) {
    if (e["ph"] == "M") {
      EXPECT_FALSE(timeline) << "metadata after timeline events: " << e;
      continue;
    }
    timeline = true;
    ASSERT_TRUE(e["ts"].is_number()) << e;
    EXPECT_GE(e["ts"].get<double>(), last) << e;
    last = e["ts"].get<double>();
    if (e["ph"] == "X") {
      EXPECT_GE(e["dur"].get<double>(), 0) << e;
    }
    EXPECT_TRUE(e["pid"].is_number_integer() && e["tid"].is_number_integer()) << e;
  }
  EXPECT_TRUE(timeline);
  // Time 0 is the first call of either rank; microseconds with fractions.
  EXPECT_EQ(r.trace["otherData"]["time_origin_ns"], 1000000);
  EXPECT_FALSE(r.trace["otherData"].contains("cut"));
}

TEST(Perfetto, HostCallsAreCompleteEventsPerThread) {
  Rendered r = with_gpu();
  size_t syncs = 0, copies = 0;
  for (const json& e : r.events("X")) {
    if (e["pid"] != 1000) continue;
    if (e["name"] == "cudaStreamSynchronize") {
      ++syncs;
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 40.0);
    }
    if (e["name"] == "cudaMemcpyAsync") {
      ++copies;
      EXPECT_EQ(e["args"]["bytes"], 4);
      EXPECT_EQ(e["args"]["copy"], "D2H");
      EXPECT_EQ(e["args"]["host_memory"], "pinned");
      EXPECT_EQ(e["args"]["stream"], "0 (legacy default)");
    }
  }
  EXPECT_EQ(syncs, 20u);
  EXPECT_EQ(copies, 20u);
  const json first = r.events("X").front();
  EXPECT_EQ(first["name"], "__cudaLaunchKernel");
  EXPECT_DOUBLE_EQ(first["ts"].get<double>(), 0.0);
  EXPECT_EQ(r.names()[std::make_pair(1000, -1)], "rank 0 (pid 1000): python3 train.py");
}

TEST(Perfetto, TheLineWatchsEventsAreNotDrawn) {
  ProcessTrace trace = rank_trace_with_gpu(0);
  std::vector<Event> with_lines;
  for (const Event& e : trace.events) {
    with_lines.push_back(e);
    Event line{};
    line.api = static_cast<uint16_t>(ApiId::syncscope_python_line);
    line.start_ns = line.end_ns = e.start_ns;
    line.tid = e.tid;
    line.dst = 1;
    line.bytes = 7;
    with_lines.push_back(line);
  }
  const size_t calls = trace.events.size();
  trace.events = std::move(with_lines);
  Rendered r({trace});
  size_t drawn = 0;
  for (const json& e : r.events("X")) {
    EXPECT_NE(e["name"], "syncscope_python_line");
    drawn += e["pid"] == 1000 && e["cat"] != "step" && e["cat"] != "phase";
  }
  EXPECT_EQ(drawn, calls) << "every call, and nothing else, is a slice";
}

// A launch put back from a run of aggregated launches says its time is not
// its own (trace/launch_runs.h); a recorded one says nothing of it.
TEST(Perfetto, AggregatedLaunchesSayTheirTimeIsSpread) {
  ProcessTrace t = rank_trace_with_gpu(0);
  size_t flagged = 0;
  for (Event& e : t.events) {
    if (api_family(e.api) == ApiFamily::kLaunch && flagged < 5) {
      e.flags |= kFlagAggregated;
      ++flagged;
    }
  }
  Rendered r({t});
  size_t spread = 0, launches = 0;
  for (const json& e : r.events("X")) {
    if (e["name"] != "__cudaLaunchKernel") continue;
    ++launches;
    spread += e["args"].contains("time");
  }
  EXPECT_EQ(spread, 5u);
  EXPECT_GT(launches, 5u);
}

TEST(Perfetto, GpuWorkHasATrackPerStreamUnderAGpuProcess) {
  Rendered r = with_gpu();
  auto names = r.names();
  int64_t gpu_pid = -1;
  for (const auto& [key, name] : names) {
    if (key.second == -1 && name == "GPU of rank 0 (pid 1000)") gpu_pid = key.first;
  }
  ASSERT_NE(gpu_pid, -1);
  EXPECT_NE(gpu_pid, 1000);
  std::set<std::string> streams;
  for (const auto& [key, name] : names) {
    if (key.first == gpu_pid && key.second != -1) streams.insert(name);
  }
  EXPECT_EQ(streams, (std::set<std::string>{"stream 7 (0x5000)", "stream 8"}));
  size_t kernels = 0, copies = 0;
  for (const json& e : r.events("X")) {
    if (e["pid"] != gpu_pid) continue;
    if (e["cat"] == "kernel") {
      ++kernels;
      // The odd name survives: quotes and markup as they were, bad bytes replaced.
      const std::string full = e["args"]["kernel"];
      EXPECT_NE(full.find("\"quoted\\\" & <b>bold</b>"), std::string::npos) << full;
      EXPECT_NE(full.find("\xef\xbf\xbd"), std::string::npos) << full;
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 20.0);
      EXPECT_EQ(e["args"]["call"], "__cudaLaunchKernel");
      EXPECT_EQ(e["args"]["stream"], "0x5000");
    }
    if (e["cat"] == "memcpy") {
      ++copies;
      EXPECT_EQ(e["name"], "memcpy DtoH");
      EXPECT_EQ(e["args"]["bytes"], 4);
      EXPECT_EQ(e["args"]["src"], "device");
      EXPECT_EQ(e["args"]["dst"], "pinned");
    }
  }
  EXPECT_EQ(kernels, 20u);
  EXPECT_EQ(copies, 20u);
}

TEST(Perfetto, NoGpuProcessWithoutATimeline) {
  Rendered r({rank_trace(0)});
  for (const auto& [key, name] : r.names()) EXPECT_EQ(name.find("GPU"), std::string::npos) << name;
  for (const json& e : r.events("X")) EXPECT_EQ(e["pid"], 1000) << e;
}

TEST(Perfetto, StepsHaveATrackPerPhase) {
  Rendered r = with_gpu();
  const auto& process = r.report.processes[0];
  ASSERT_FALSE(process.analysis.phases.empty());
  const std::string phase = process.analysis.phases[0].name;
  int64_t tid = -1;
  for (const auto& [key, name] : r.names()) {
    if (key.first == 1000 && name == "steps: " + phase) tid = key.second;
  }
  ASSERT_NE(tid, -1);
  size_t steps = 0;
  std::set<std::string> other;
  for (const json& e : r.events("X")) {
    if (e["pid"] != 1000 || e["tid"] != tid) continue;
    if (e["cat"] != "step") {
      other.insert(e["name"]);
      continue;
    }
    ++steps;
    EXPECT_EQ(e["args"]["phase"], phase);
    EXPECT_TRUE(e["args"]["gpu_busy_share"].is_number()) << e;
    EXPECT_TRUE(e["args"]["gpu_idle_us_by_cause"].contains("sync")) << e;
  }
  EXPECT_EQ(steps, process.analysis.phases[0].steps);
  EXPECT_EQ(other, (std::set<std::string>{"warm-up", "teardown"}));
}

TEST(Perfetto, FindingsAreInstantEventsWhereTheyHappened) {
  Rendered r = with_gpu();
  std::vector<json> item_line;
  for (const json& e : r.events("i")) {
    EXPECT_EQ(e["cat"], "finding");
    EXPECT_EQ(e["s"], "p");
    if (e["pid"] == 1000 && e["args"]["phase"] == "steady" && e["args"]["where"] == "train.py:6") {
      item_line.push_back(e);
    }
  }
  ASSERT_FALSE(item_line.empty());
  const json& first = item_line.front();
  EXPECT_EQ(first["name"], "hidden-sync train.py:6");
  EXPECT_EQ(first["args"]["category"], "hidden-sync");
  EXPECT_EQ(first["args"]["where"], "train.py:6");
  EXPECT_EQ(first["args"]["source"], "value = loss.item()");
  EXPECT_EQ(first["args"]["in_baseline"], true);
  EXPECT_FALSE(first["args"]["native"].empty());
  EXPECT_FALSE(first["args"]["hint"].get<std::string>().empty());
  // One per occurrence, at its wait: the first steady step's sync.
  const ReportedFinding& finding = r.report.processes[0].findings[0];
  ASSERT_EQ(finding.finding.phase, Phase::kSteady);
  EXPECT_EQ(item_line.size(), finding.finding.count);
  EXPECT_DOUBLE_EQ(first["ts"].get<double>(), (finding.finding.occurrences[0].start_ns - 1000000) / 1e3);
  EXPECT_EQ(first["args"]["occurrence"], "1 of " + std::to_string(finding.finding.count));
  // Rank 1's suppressed line is there too, marked.
  bool suppressed = false;
  for (const json& e : r.events("i")) suppressed |= e["pid"] == 1001 && e["args"].contains("suppressed_by");
  EXPECT_TRUE(suppressed);
}

TEST(Perfetto, ALongTraceIsCutAndSaysSo) {
  Rendered r({rank_trace_with_gpu(0), rank_trace_with_gpu(1)}, PerfettoOptions{50});
  size_t timeline = 0;
  for (const json& e : r.trace["traceEvents"]) timeline += e["ph"] != "M" && e["name"] != "trace cut here";
  EXPECT_EQ(timeline, 50u);
  EXPECT_EQ(r.trace["otherData"]["events_written"], 50);
  EXPECT_GT(r.trace["otherData"]["events"].get<size_t>(), 50u);
  const std::string cut = r.trace["otherData"]["cut"];
  EXPECT_NE(cut.find("first 50 of"), std::string::npos) << cut;
  bool marker = false;
  for (const json& e : r.events("i")) marker |= e["name"] == "trace cut here" && e["s"] == "g";
  EXPECT_TRUE(marker);
}

TEST(Perfetto, StringsThatAreNotUtf8StillParse) {
  ProcessTrace t = rank_trace(0);
  t.process_info[0].second = "python3 \"tr\\ain\".py \xc3\x28 \x01";
  t.thread_names[0] = "worker\xff";
  Rendered r({t});  // parsing is the check
  EXPECT_NE(r.names()[std::make_pair(1000, -1)].find("\xef\xbf\xbd"), std::string::npos);
}

}  // namespace
}  // namespace syncscope::testing
