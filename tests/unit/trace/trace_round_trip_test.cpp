#include <gtest/gtest.h>

#include <filesystem>

#include "tests/unit/trace/trace_test_util.h"
#include "trace/api.h"
#include "trace/reader.h"

namespace syncscope::testing {
namespace {

TEST(TraceRoundTrip, EveryRecordTypeComesBack) {
  std::string dir = temp_dir("roundtrip");
  std::string error;
  TraceWriter w;
  ASSERT_TRUE(w.open(dir, make_header(4242), &error)) << error;
  EXPECT_EQ(std::filesystem::path(w.path()).filename(), "4242-0.sstrace");
  Event events[3] = {make_event(static_cast<uint16_t>(ApiId::cudaMemcpyAsync), 300, 350, 1),
                     make_event(static_cast<uint16_t>(ApiId::__cudaLaunchKernel), 100, 110),
                     make_event(static_cast<uint16_t>(ApiId::cudaStreamSynchronize), 200, 290, 1)};
  events[0].bytes = 4096;
  events[0].direction = static_cast<uint8_t>(Direction::kHostToDevice);
  events[0].host_mem = static_cast<uint8_t>(HostMem::kPageable);
  events[0].stream = 0xabc;
  events[0].flags = kFlagAsync;
  w.add_events(events, 3);
  uint64_t pcs[] = {0x401000, 0x402000, 0x7f0000001000};
  w.add_stack(1, pcs, 3);
  w.add_module(0x400000, 0x500000, 0, "/usr/bin/prog");
  w.add_module(0x7f0000000000, 0x7f0000100000, 0x7f0000000000, "/lib/libx.so");
  w.add_thread(7, "main");
  w.add_process_info("argv", "prog --flag");
  w.add_process_info("cuda_runtime", "real");
  w.add_drops(7, 5);
  ASSERT_TRUE(w.flush(&error)) << error;
  w.add_end(EndPayload{999, 3, 5, 2});
  w.close();

  auto trace = read_trace_file(dir + "/4242-0.sstrace");
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->complete);
  EXPECT_EQ(trace->truncation, "");
  EXPECT_EQ(trace->header.pid, 4242u);
  ASSERT_EQ(trace->events.size(), 3u);
  // Sorted by start time.
  EXPECT_EQ(trace->events[0].start_ns, 100u);
  EXPECT_EQ(trace->events[1].start_ns, 200u);
  const Event& copy = trace->events[2];
  EXPECT_EQ(copy.api, static_cast<uint16_t>(ApiId::cudaMemcpyAsync));
  EXPECT_EQ(copy.bytes, 4096u);
  EXPECT_EQ(copy.stream, 0xabcu);
  EXPECT_EQ(copy.host_mem, static_cast<uint8_t>(HostMem::kPageable));
  EXPECT_EQ(copy.flags, kFlagAsync);
  ASSERT_EQ(trace->stacks.count(1), 1u);
  EXPECT_EQ(trace->stacks.at(1), std::vector<uint64_t>(pcs, pcs + 3));
  ASSERT_EQ(trace->modules.size(), 2u);
  EXPECT_EQ(trace->module_for(0x401000)->path, "/usr/bin/prog");
  EXPECT_EQ(trace->module_for(0x7f0000001000)->bias, 0x7f0000000000u);
  EXPECT_EQ(trace->module_for(0x600000), nullptr);
  EXPECT_EQ(trace->thread_names.at(7), "main");
  EXPECT_EQ(trace->info("argv"), "prog --flag");
  EXPECT_EQ(trace->info("missing"), "");
  EXPECT_EQ(trace->events_dropped, 5u);  // from the end record
  EXPECT_EQ(trace->stacks_dropped, 2u);
}

TEST(TraceRoundTrip, SamePidGetsASecondFile) {
  std::string dir = temp_dir("names");
  std::string error;
  TraceWriter a, b;
  ASSERT_TRUE(a.open(dir, make_header(77), &error)) << error;
  ASSERT_TRUE(b.open(dir, make_header(77), &error)) << error;
  EXPECT_NE(a.path(), b.path());
  EXPECT_EQ(std::filesystem::path(b.path()).filename(), "77-1.sstrace");
  auto files = list_trace_files(dir);
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(files->size(), 2u);
}

TEST(TraceRoundTrip, DropsWithoutEndAreSummedPerThread) {
  std::string dir = temp_dir("drops");
  std::string error;
  TraceWriter w;
  ASSERT_TRUE(w.open(dir, make_header(1), &error));
  w.add_drops(1, 3);
  w.add_drops(2, 4);
  w.add_drops(1, 10);  // cumulative: replaces 3
  ASSERT_TRUE(w.flush(&error));
  w.close_without_flush();
  auto trace = read_trace_file(w.path());
  ASSERT_TRUE(trace.ok());
  EXPECT_FALSE(trace->complete);
  EXPECT_NE(trace->truncation.find("no end record"), std::string::npos);
  EXPECT_EQ(trace->events_dropped, 14u);
}

TEST(TraceRoundTrip, UnwritableDirectoryIsAnErrorNotACrash) {
  TraceWriter w;
  std::string error;
  EXPECT_FALSE(w.open("/proc/syncscope-cannot-exist", make_header(1), &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(w.is_open());
}

TEST(TraceRoundTrip, MissingDirectoryIsAnError) {
  auto files = list_trace_files("/nonexistent/syncscope");
  EXPECT_FALSE(files.ok());
  auto trace = read_trace_file("/nonexistent/x.sstrace");
  EXPECT_FALSE(trace.ok());
}

}  // namespace
}  // namespace syncscope::testing
