// The GPU timeline's records (docs/gpu-timeline.md): written and read back,
// damaged, and joined to the recorded calls by correlation id, thread and time.
#include <gtest/gtest.h>

#include <map>

#include "tests/unit/trace/trace_test_util.h"
#include "trace/api.h"
#include "trace/gpu_join.h"
#include "trace/reader.h"

namespace syncscope::testing {
namespace {

uint16_t id(ApiId api) { return static_cast<uint16_t>(api); }

GpuRecord gpu(GpuKind kind, uint64_t start, uint64_t end, uint32_t correlation, uint32_t stream_id = 7) {
  GpuRecord r{};
  r.kind = static_cast<uint8_t>(kind);
  r.start_ns = start;
  r.end_ns = end;
  r.correlation_id = correlation;
  r.stream_id = stream_id;
  r.device = 0;
  return r;
}

GpuRecord api_record(uint64_t start, uint64_t end, uint32_t correlation, uint32_t tid,
                     GpuKind kind = GpuKind::kRuntimeApi) {
  GpuRecord r = gpu(kind, start, end, correlation, 0);
  r.tid = tid;
  r.name_id = 211;  // a callback id
  return r;
}

Event on_thread(Event e, uint32_t tid, uint64_t stream = 0) {
  e.tid = tid;
  e.stream = stream;
  return e;
}

std::string write_trace(const std::string& name, const std::vector<Event>& events,
                        const std::vector<GpuRecord>& records, bool strings = true) {
  std::string dir = temp_dir(name);
  std::string error;
  TraceWriter w;
  EXPECT_TRUE(w.open(dir, make_header(99), &error)) << error;
  w.add_events(events.data(), events.size());
  if (strings) {
    w.add_string(1, "void gemm<float>(float const*, float*)");
    w.add_string(2, std::string(100000, 'k'));  // longer than the limit: cut
  }
  w.add_gpu_records(records.data(), records.size());
  w.add_process_info("gpu_timeline", "on");
  w.add_end(EndPayload{5000, events.size(), 0, 0});
  EXPECT_TRUE(w.flush(&error)) << error;
  std::string path = w.path();
  w.close();
  return path;
}

TEST(GpuTimelineTrace, RecordsComeBack) {
  GpuRecord kernel = gpu(GpuKind::kKernel, 400, 900, 11);
  kernel.name_id = 1;
  kernel.context_id = 3;
  kernel.graph_id = 0;
  GpuRecord copy = gpu(GpuKind::kMemcpy, 100, 300, 12, 8);
  copy.bytes = 1 << 20;
  copy.copy_kind = static_cast<uint8_t>(GpuCopyKind::kHtoD);
  copy.src_kind = static_cast<uint8_t>(GpuMemoryKind::kPageable);
  copy.dst_kind = static_cast<uint8_t>(GpuMemoryKind::kDevice);
  copy.flags = kGpuFlagAsync;
  GpuRecord api = api_record(50, 60, 11, 7);
  api.result = 0;
  std::string path = write_trace("gpu-roundtrip", {}, {kernel, copy, api});

  auto trace = read_trace_file(path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->complete) << trace->truncation;
  ASSERT_EQ(trace->gpu_activity.size(), 2u);
  ASSERT_EQ(trace->gpu_api.size(), 1u);
  // Sorted by start: the copy first.
  const GpuActivity& c = trace->gpu_activity[0];
  EXPECT_EQ(c.kind, static_cast<uint8_t>(GpuKind::kMemcpy));
  EXPECT_EQ(c.bytes, 1u << 20);
  EXPECT_EQ(c.stream_id, 8u);
  EXPECT_EQ(gpu_memory_kind_name(c.src_kind), "pageable");
  EXPECT_EQ(gpu_memory_kind_name(c.dst_kind), "device");
  EXPECT_EQ(c.copy_kind, static_cast<uint8_t>(GpuCopyKind::kHtoD));
  EXPECT_EQ(c.flags, kGpuFlagAsync);
  const GpuActivity& k = trace->gpu_activity[1];
  EXPECT_EQ(k.start_ns, 400u);
  EXPECT_EQ(k.end_ns, 900u);
  EXPECT_EQ(k.correlation_id, 11u);
  EXPECT_EQ(k.context_id, 3u);
  EXPECT_EQ(trace->gpu_name(k), "void gemm<float>(float const*, float*)");
  EXPECT_EQ(trace->gpu_name(c), "");
  EXPECT_EQ(trace->strings.at(2).size(), 65536u);
  EXPECT_EQ(trace->gpu_api[0].tid, 7u);
  EXPECT_EQ(trace->gpu_api[0].name_id, 211u);
  EXPECT_EQ(trace->info("gpu_timeline"), "on");
  // Nothing to join to: no events.
  EXPECT_EQ(k.event_index, -1);
  EXPECT_EQ(k.stream, GpuActivity::kNoStream);
}

TEST(GpuTimelineTrace, ManyRecordsSplitAcrossRecords) {
  std::vector<GpuRecord> many(3000, gpu(GpuKind::kKernel, 1, 2, 1));
  std::string path = write_trace("gpu-many", {}, many, false);
  auto trace = read_trace_file(path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_EQ(trace->gpu_activity.size(), 3000u);
}

TEST(GpuTimelineTrace, DamagedRecordStopsReading) {
  std::string dir = temp_dir("gpu-damaged");
  std::string error;
  TraceWriter w;
  ASSERT_TRUE(w.open(dir, make_header(5), &error)) << error;
  GpuRecord r = gpu(GpuKind::kKernel, 1, 2, 1);
  w.add_gpu_records(&r, 1);
  ASSERT_TRUE(w.flush(&error));
  std::string path = w.path();
  w.close();
  // Entry size 32: smaller than a GpuRecord.
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(sizeof(FileHeader) + sizeof(RecordHeader));
  uint32_t bad = 32;
  f.write(reinterpret_cast<const char*>(&bad), 4);
  f.close();
  auto trace = read_trace_file(path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_FALSE(trace->complete);
  EXPECT_NE(trace->truncation.find("gpu activity entry size 32"), std::string::npos) << trace->truncation;
  EXPECT_TRUE(trace->gpu_activity.empty());
}

TEST(GpuTimelineJoin, EachRecordFindsItsCall) {
  // Thread 7: a launch, a copy, a sync; thread 8: a launch at the same time.
  std::vector<Event> events = {
      on_thread(make_event(id(ApiId::__cudaLaunchKernel), 1000, 1100), 7, 0xa00),
      on_thread(make_event(id(ApiId::__cudaLaunchKernel), 1010, 1090), 8, 0xb00),
      on_thread(make_event(id(ApiId::cudaMemcpyAsync), 2000, 2300), 7, 0xa00),
      on_thread(make_event(id(ApiId::cudaStreamSynchronize), 3000, 9000), 7, 0xa00),
  };
  std::vector<GpuRecord> records = {
      api_record(1020, 1080, 1, 7),
      api_record(1030, 1070, 2, 8),
      api_record(2050, 2250, 3, 7),
      api_record(3010, 8990, 4, 7),
      gpu(GpuKind::kKernel, 1500, 2500, 1, 13),
      gpu(GpuKind::kKernel, 1600, 1700, 2, 14),
      gpu(GpuKind::kMemcpy, 2600, 2900, 3, 13),
      gpu(GpuKind::kSync, 3010, 8990, 4, 13),
      gpu(GpuKind::kKernel, 4000, 4100, 99, 13),  // launched by something unrecorded: same stream id
      gpu(GpuKind::kKernel, 4000, 4100, 98, 77),  // unknown stream id too
  };
  ProcessTrace trace;
  trace.events = events;
  for (const GpuRecord& r : records) add_gpu_record(trace, r);
  join_gpu_activity(trace);
  std::map<uint32_t, const GpuActivity*> by_correlation;
  for (const GpuActivity& a : trace.gpu_activity) by_correlation[a.correlation_id] = &a;
  EXPECT_EQ(by_correlation[1]->event_index, 0);
  EXPECT_EQ(by_correlation[1]->stream, 0xa00u);
  EXPECT_EQ(by_correlation[2]->event_index, 1);
  EXPECT_EQ(by_correlation[2]->stream, 0xb00u);
  EXPECT_EQ(by_correlation[3]->event_index, 2);
  EXPECT_EQ(by_correlation[4]->event_index, 3);
  EXPECT_EQ(by_correlation[99]->event_index, -1);
  EXPECT_EQ(by_correlation[99]->stream, 0xa00u);  // stream id 13 is 0xa00's
  EXPECT_EQ(by_correlation[98]->stream, GpuActivity::kNoStream);
}

// A launch under way when a sampling window's kinds went off: its kernel
// record came, its API record (written at the call's exit) did not. It
// joins the first free call that fits after its lower neighbour's call; a
// record from no recorded call still joins nothing.
TEST(GpuTimelineJoin, WorkWhoseApiRecordWasLostJoinsByItsNeighbours) {
  std::vector<Event> events = {
      on_thread(make_event(id(ApiId::__cudaLaunchKernel), 1000, 1100), 7, 0xa00),
      on_thread(make_event(id(ApiId::cudaStreamSynchronize), 1200, 1300), 8, 0xb00),
      on_thread(make_event(id(ApiId::__cudaLaunchKernel), 1400, 1500), 8, 0xb00),  // id 3: no API record
      on_thread(make_event(id(ApiId::cudaMemcpyAsync), 1600, 1700), 7, 0xa00),      // id 4: no API record
      on_thread(make_event(id(ApiId::__cudaLaunchKernel), 1800, 1900), 7, 0xa00),  // id 5
  };
  std::vector<GpuRecord> records = {
      api_record(1010, 1090, 1, 7),
      api_record(1810, 1890, 5, 7),
      gpu(GpuKind::kKernel, 1150, 1250, 1, 13),
      gpu(GpuKind::kKernel, 1550, 1650, 3, 14),
      gpu(GpuKind::kMemcpy, 1750, 1760, 4, 13),
      gpu(GpuKind::kKernel, 1950, 1990, 5, 13),
      gpu(GpuKind::kKernel, 2000, 2100, 6, 13),  // its call was not recorded
  };
  ProcessTrace trace;
  trace.events = events;
  for (const GpuRecord& r : records) add_gpu_record(trace, r);
  join_gpu_activity(trace);
  std::map<uint32_t, const GpuActivity*> by_correlation;
  for (const GpuActivity& a : trace.gpu_activity) by_correlation[a.correlation_id] = &a;
  EXPECT_EQ(by_correlation[1]->event_index, 0);
  EXPECT_EQ(by_correlation[3]->event_index, 2);
  EXPECT_EQ(by_correlation[3]->stream, 0xb00u);
  EXPECT_EQ(by_correlation[4]->event_index, 3);
  EXPECT_EQ(by_correlation[5]->event_index, 4);
  EXPECT_EQ(by_correlation[6]->event_index, -1);
}

TEST(GpuTimelineJoin, GraphLaunchOwnsAllItsNodes) {
  ProcessTrace trace;
  trace.events = {on_thread(make_event(id(ApiId::cudaGraphLaunch), 100, 200), 7, 0xc00)};
  trace.gpu_api = {api_record(110, 190, 5, 7)};
  for (int i = 0; i < 4; ++i) {
    GpuActivity a;
    static_cast<GpuRecord&>(a) = gpu(i == 3 ? GpuKind::kMemcpy : GpuKind::kKernel, 300 + i * 10, 305 + i * 10, 5);
    a.graph_id = 1;
    trace.gpu_activity.push_back(a);
  }
  join_gpu_activity(trace);
  for (const GpuActivity& a : trace.gpu_activity) {
    EXPECT_EQ(a.event_index, 0);
    EXPECT_EQ(a.stream, 0xc00u);
  }
}

TEST(GpuTimelineJoin, WrongThreadFamilyOrTimeDoesNotJoin) {
  ProcessTrace trace;
  trace.events = {
      on_thread(make_event(id(ApiId::cudaMemcpyAsync), 100, 200), 7),  // a copy cannot launch a kernel
      on_thread(make_event(id(ApiId::__cudaLaunchKernel), 300, 400), 8),
      on_thread(make_event(id(ApiId::__cudaLaunchKernel), 500, 600), 7),
  };
  trace.gpu_api = {api_record(110, 190, 1, 7),     // inside the copy
                   api_record(310, 390, 2, 9),     // no events on thread 9
                   api_record(5000, 5100, 3, 7)};  // nothing on thread 7 at that time
  for (uint32_t c : {1u, 2u, 3u}) {
    GpuActivity a;
    static_cast<GpuRecord&>(a) = gpu(GpuKind::kKernel, 1000, 1100, c);
    trace.gpu_activity.push_back(a);
  }
  join_gpu_activity(trace);
  for (const GpuActivity& a : trace.gpu_activity) EXPECT_EQ(a.event_index, -1) << a.correlation_id;
}

TEST(GpuTimelineJoin, WalksBackOverAMarkerSpanningTheCall) {
  ProcessTrace trace;
  // A GIL-wait marker opened before the launch and still open after it.
  trace.events = {on_thread(make_event(id(ApiId::syncscope_gil_wait), 50, 5000), 7),
                  on_thread(make_event(id(ApiId::__cudaLaunchKernel), 100, 200), 7),
                  on_thread(make_event(id(ApiId::cudaMemset), 300, 400), 7)};
  trace.gpu_api = {api_record(120, 180, 1, 7), api_record(310, 390, 2, 7)};
  GpuActivity k, m;
  static_cast<GpuRecord&>(k) = gpu(GpuKind::kKernel, 500, 600, 1);
  static_cast<GpuRecord&>(m) = gpu(GpuKind::kMemset, 700, 800, 2);
  trace.gpu_activity = {k, m};
  join_gpu_activity(trace);
  EXPECT_EQ(trace.gpu_activity[0].event_index, 1);
  EXPECT_EQ(trace.gpu_activity[1].event_index, 2);
}

// Without API records: work joins by issue order (correlation ids grow as
// calls begin), a copy only a call of its bytes, a record that fits no call
// (a library's own launch) leaves the order intact, a graph's nodes share
// their call, and a sync record joins the sync call around it.
TEST(GpuTimelineJoin, WithoutApiRecordsByIssueOrder) {
  constexpr uint64_t kUs = 1000;  // beyond the join's slack
  ProcessTrace trace;
  Event copy = on_thread(make_event(id(ApiId::cudaMemcpyAsync), 300 * kUs, 320 * kUs), 7, 0xa00);
  copy.bytes = 4096;
  Event captured = on_thread(make_event(id(ApiId::__cudaLaunchKernel), 330 * kUs, 340 * kUs), 7, 0xa00);
  captured.flags |= kFlagCapturing;
  trace.events = {
      on_thread(make_event(id(ApiId::__cudaLaunchKernel), 100 * kUs, 110 * kUs), 7, 0xa00),
      on_thread(make_event(id(ApiId::__cudaLaunchKernel), 200 * kUs, 210 * kUs), 8, 0xb00),
      copy,
      captured,  // recorded into a graph: no work of its own
      on_thread(make_event(id(ApiId::cudaGraphLaunch), 400 * kUs, 410 * kUs), 7, 0xa00),
      on_thread(make_event(id(ApiId::cudaStreamSynchronize), 420 * kUs, 2000 * kUs), 7, 0xa00),
  };
  auto work = [&](GpuKind kind, uint64_t start, uint32_t correlation, uint64_t bytes = 0) {
    GpuActivity a;
    static_cast<GpuRecord&>(a) = gpu(kind, start, start + 50 * kUs, correlation);
    a.bytes = bytes;
    trace.gpu_activity.push_back(a);
  };
  work(GpuKind::kKernel, 150 * kUs, 10);
  work(GpuKind::kKernel, 250 * kUs, 11);
  work(GpuKind::kKernel, 260 * kUs, 12);        // a call not recorded: started before any call left
  work(GpuKind::kMemcpy, 350 * kUs, 13, 1024);  // not the copy's bytes; before the graph launch
  work(GpuKind::kMemcpy, 600 * kUs, 14, 4096);
  work(GpuKind::kKernel, 700 * kUs, 15);  // graph nodes
  work(GpuKind::kKernel, 800 * kUs, 15);
  work(GpuKind::kSync, 1000 * kUs, 16);
  join_gpu_activity(trace);
  std::map<uint64_t, int64_t> by_start;
  for (const GpuActivity& a : trace.gpu_activity) by_start[a.start_ns] = a.event_index;
  EXPECT_EQ(by_start[150 * kUs], 0);
  EXPECT_EQ(by_start[250 * kUs], 1);
  EXPECT_EQ(by_start[260 * kUs], -1);  // the graph launch fits its kind, but began later
  EXPECT_EQ(by_start[350 * kUs], -1);  // no call moved 1024 bytes
  EXPECT_EQ(by_start[600 * kUs], 2);
  EXPECT_EQ(by_start[700 * kUs], 4);  // both nodes: the graph launch (the captured launch ran nothing)
  EXPECT_EQ(by_start[800 * kUs], 4);
  EXPECT_EQ(by_start[1000 * kUs], 5);
}


TEST(GpuTimelineJoin, WindowCoversOnlyInside) {
  const std::vector<std::pair<uint64_t, uint64_t>> windows = {{100, 200}, {500, 600}};
  EXPECT_TRUE(gpu_window_covers({}, 5, 7)) << "no windows: a full timeline";
  EXPECT_TRUE(gpu_window_covers(windows, 100, 200));
  EXPECT_TRUE(gpu_window_covers(windows, 510, 590));
  EXPECT_FALSE(gpu_window_covers(windows, 99, 150));
  EXPECT_FALSE(gpu_window_covers(windows, 150, 201));
  EXPECT_FALSE(gpu_window_covers(windows, 150, 550)) << "across two windows";
  EXPECT_FALSE(gpu_window_covers(windows, 300, 310));
  EXPECT_FALSE(gpu_window_covers(windows, 700, 710));
}

// Under a sampled timeline a window's records join the calls made in it,
// not the many earlier calls whose work was never recorded.
TEST(GpuTimelineJoin, SampledRecordsJoinCallsInsideTheirWindow) {
  constexpr uint64_t kUs = 1000;
  ProcessTrace trace;
  for (uint64_t k = 0; k < 40; ++k) {  // before the window: no records
    trace.events.push_back(on_thread(make_event(id(ApiId::__cudaLaunchKernel), k * 10 * kUs, k * 10 * kUs + kUs), 7, 0xa00));
  }
  for (uint64_t k = 0; k < 3; ++k) {  // inside it
    const uint64_t t = 1000 * kUs + k * 10 * kUs;
    trace.events.push_back(on_thread(make_event(id(ApiId::__cudaLaunchKernel), t, t + kUs), 7, 0xa00));
  }
  GpuRecord window{};
  window.kind = static_cast<uint8_t>(GpuKind::kWindow);
  window.start_ns = 900 * kUs;
  window.end_ns = 1100 * kUs;
  add_gpu_record(trace, window);
  ASSERT_EQ(trace.gpu_windows.size(), 1u);
  EXPECT_TRUE(trace.gpu_activity.empty()) << "a window is not GPU work";
  for (uint32_t k = 0; k < 3; ++k) {
    GpuActivity a;
    static_cast<GpuRecord&>(a) = gpu(GpuKind::kKernel, 1005 * kUs + k * 10 * kUs, 1008 * kUs + k * 10 * kUs, 500 + k);
    trace.gpu_activity.push_back(a);
  }
  join_gpu_activity(trace);
  for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(trace.gpu_activity[k].event_index, 40 + k) << k;
}

}  // namespace
}  // namespace syncscope::testing
