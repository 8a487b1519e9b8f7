// restrict_to_stretch (trace/time_window.h): what `syncscope report --between`
// keeps of a trace, syncscope.watch()'s stretch of a recording.
#include "trace/time_window.h"

#include <gtest/gtest.h>

#include "trace/api.h"
#include "trace/gpu_record.h"
#include "trace/reader.h"

namespace syncscope {
namespace {

Event call(ApiId api, uint64_t start, uint64_t end) {
  Event e{};
  e.api = static_cast<uint16_t>(api);
  e.start_ns = start;
  e.end_ns = end;
  e.tid = 1;
  return e;
}

GpuActivity work(uint64_t start, int64_t event_index) {
  GpuActivity a{};
  a.kind = static_cast<uint8_t>(GpuKind::kKernel);
  a.start_ns = start;
  a.end_ns = start + 5;
  a.event_index = event_index;
  return a;
}

GpuRecord api_record(uint64_t start) {
  GpuRecord r{};
  r.kind = static_cast<uint8_t>(GpuKind::kRuntimeApi);
  r.start_ns = start;
  r.end_ns = start + 3;
  return r;
}

TEST(TimeWindow, KeepsWhatBeganInsideAndTheGpuWorkOfIt) {
  ProcessTrace t;
  t.events = {call(ApiId::cudaStreamCreate, 10, 12),         // 0: before the stretch
              call(ApiId::__cudaLaunchKernel, 90, 120),      // 1: began before, ended inside: out
              call(ApiId::__cudaLaunchKernel, 100, 101),     // 2: at the stretch's start: in
              call(ApiId::cudaStreamSynchronize, 150, 400),  // 3: ends after the stretch: in
              call(ApiId::__cudaLaunchKernel, 200, 201),     // 4: at the stretch's end: in
              call(ApiId::__cudaLaunchKernel, 201, 202)};    // 5: after: out
  t.gpu_activity = {work(95, 1),    // its call is outside
                    work(130, 2),   // its call is inside: kept, index follows
                    work(150, -1),  // joined to nothing, began inside
                    work(250, -1),  // joined to nothing, began after
                    work(260, 4)};  // began after, but its call is inside: kept
  t.gpu_api = {api_record(90), api_record(100), api_record(201)};
  t.stacks[3] = {0x1000};
  t.gpu_windows = {{0, 50}, {300, 400}};  // sampled: neither covers the stretch
  t.events_dropped = 7;

  restrict_to_stretch(t, 100, 200);

  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(t.events[0].start_ns, 100u);
  EXPECT_EQ(t.events[1].start_ns, 150u);
  EXPECT_EQ(t.events[2].start_ns, 200u);
  ASSERT_EQ(t.gpu_activity.size(), 3u);
  EXPECT_EQ(t.gpu_activity[0].start_ns, 130u);
  EXPECT_EQ(t.gpu_activity[0].event_index, 0);
  EXPECT_EQ(t.gpu_activity[1].start_ns, 150u);
  EXPECT_EQ(t.gpu_activity[1].event_index, -1);
  EXPECT_EQ(t.gpu_activity[2].start_ns, 260u);
  EXPECT_EQ(t.gpu_activity[2].event_index, 2);
  ASSERT_EQ(t.gpu_api.size(), 1u);
  EXPECT_EQ(t.gpu_api[0].start_ns, 100u);
  EXPECT_EQ(t.stacks.size(), 1u) << "stacks stay whole";
  EXPECT_EQ(t.gpu_windows.size(), 2u) << "no sampling burst left would read as a full timeline";
  EXPECT_EQ(t.events_dropped, 7u) << "drop counts are the whole trace's";
}

TEST(TimeWindow, AnEmptyWindowLeavesNothing) {
  ProcessTrace t;
  t.events = {call(ApiId::__cudaLaunchKernel, 10, 11)};
  t.gpu_activity = {work(12, 0)};
  restrict_to_stretch(t, 50, 60);
  EXPECT_TRUE(t.events.empty());
  EXPECT_TRUE(t.gpu_activity.empty());
}

}  // namespace
}  // namespace syncscope
