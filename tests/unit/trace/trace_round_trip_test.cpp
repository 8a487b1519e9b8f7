// What the writer puts in a file comes back from the reader, record type by
// record type; file naming; the reader's accounting (sorting, drops, end).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tests/unit/trace/trace_test_util.h"
#include "trace/api.h"
#include "trace/reader.h"

namespace syncscope::testing {
namespace {

// Removes this process's temp_dir()s when the test program ends.
class RemoveTempDirs : public ::testing::Environment {
 public:
  void TearDown() override {
    const std::string prefix = "syncscope-trace-test-" + std::to_string(getpid()) + "-";
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path(), ec)) {
      if (entry.path().filename().string().rfind(prefix, 0) == 0) std::filesystem::remove_all(entry.path(), ec);
    }
  }
};
[[maybe_unused]] ::testing::Environment* const kRemoveTempDirs =
    ::testing::AddGlobalTestEnvironment(new RemoveTempDirs);

uint16_t id(ApiId api) { return static_cast<uint16_t>(api); }

TEST(TraceRoundTrip, EveryRecordTypeComesBack) {
  std::string dir = temp_dir("roundtrip");
  std::string error;
  TraceWriter w;
  FileHeader header = make_header(4242);
  header.ppid = 4241;
  header.flags = kFileClockTsc;
  header.start_monotonic_ns = 123456789;
  header.start_realtime_ns = 1700000000000000000ull;
  ASSERT_TRUE(w.open(dir, header, &error)) << error;
  EXPECT_EQ(std::filesystem::path(w.path()).filename(), "4242-0.sstrace");

  Event events[3] = {make_event(id(ApiId::cudaMemcpyAsync), 300, 350, 1),
                     make_event(id(ApiId::__cudaLaunchKernel), 100, 110),
                     make_event(id(ApiId::cudaStreamSynchronize), 200, 290, 1)};
  events[0].bytes = 4096;
  events[0].dst = 0x7f0000001000;
  events[0].src = 0x5555000;
  events[0].direction = static_cast<uint8_t>(Direction::kHostToDevice);
  events[0].host_mem = static_cast<uint8_t>(HostMem::kPageable);
  events[0].stream = 0xabc;
  events[0].flags = kFlagAsync | kFlagPerThreadStream;
  events[0].device = 3;
  events[2].flags = kFlagError;
  events[2].result = -2;
  w.add_events(events, 3);
  uint64_t pcs[] = {0x401000, 0x402000, 0x7f0000001000};
  w.add_stack(1, pcs, 3);
  w.add_stack(2, nullptr, 0);
  w.add_module(0x7f0000000000, 0x7f0000100000, 0x7f0000000000, "/lib/libx.so");
  const unsigned char build_id[] = {0x5c, 0xa1, 0xab, 0x1e, 0x00, 0xff};
  w.add_module_build_id(0x7f0000000000, build_id, sizeof(build_id));
  w.add_module(0x400000, 0x500000, 0, "/usr/bin/prog");         // no build-id
  w.add_module_build_id(0x123000, build_id, sizeof(build_id));  // no such module: ignored
  w.add_thread(7, "main");
  w.add_thread(8, "");
  w.add_process_info("argv", "prog --flag");
  w.add_process_info("cuda_runtime", "real");
  w.add_process_info("empty", "");
  w.add_drops(7, 5);
  w.add_python_code(11, 40, "/home/u/train.py", "train_step");
  w.add_python_code(12, 1, "<string>", "");
  uint64_t frames[] = {(uint64_t{11} << 32) | 42, (uint64_t{12} << 32) | 1};
  w.add_python_stack(1, frames, 2);
  ASSERT_TRUE(w.flush(&error)) << error;
  w.add_end(EndPayload{999, 3, 5, 2});
  w.close();
  EXPECT_FALSE(w.is_open());

  auto trace = read_trace_file(dir + "/4242-0.sstrace");
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->complete);
  EXPECT_EQ(trace->truncation, "");
  EXPECT_EQ(trace->file, dir + "/4242-0.sstrace");
  EXPECT_EQ(std::memcmp(trace->header.magic, kTraceMagic, 8), 0);
  EXPECT_EQ(trace->header.version, kTraceVersion);
  EXPECT_EQ(trace->header.header_size, sizeof(FileHeader));
  EXPECT_EQ(trace->header.event_size, sizeof(Event));
  EXPECT_EQ(trace->header.pid, 4242u);
  EXPECT_EQ(trace->header.ppid, 4241u);
  EXPECT_EQ(trace->header.flags, kFileClockTsc);
  EXPECT_EQ(trace->header.start_monotonic_ns, 123456789u);
  EXPECT_EQ(trace->header.start_realtime_ns, 1700000000000000000ull);

  ASSERT_EQ(trace->events.size(), 3u);
  EXPECT_TRUE(same_event(trace->events[0], events[1]));  // sorted by start time
  EXPECT_TRUE(same_event(trace->events[1], events[2]));
  EXPECT_TRUE(same_event(trace->events[2], events[0]));
  EXPECT_EQ(trace->events[2].device, 3);
  EXPECT_EQ(trace->events[1].result, -2);

  ASSERT_EQ(trace->stacks.size(), 2u);
  EXPECT_EQ(trace->stacks.at(1), std::vector<uint64_t>(pcs, pcs + 3));
  EXPECT_TRUE(trace->stacks.at(2).empty());

  ASSERT_EQ(trace->modules.size(), 2u);
  EXPECT_EQ(trace->modules[0].path, "/usr/bin/prog");  // sorted by start
  EXPECT_EQ(trace->modules[1].start, 0x7f0000000000u);
  EXPECT_EQ(trace->modules[1].end, 0x7f0000100000u);
  EXPECT_EQ(trace->modules[1].build_id, "5ca1ab1e00ff");
  EXPECT_EQ(trace->modules[0].build_id, "");
  EXPECT_EQ(trace->module_for(0x401000)->path, "/usr/bin/prog");
  EXPECT_EQ(trace->module_for(0x400000)->path, "/usr/bin/prog");
  EXPECT_EQ(trace->module_for(0x500000), nullptr);  // end is exclusive
  EXPECT_EQ(trace->module_for(0x7f0000001000)->bias, 0x7f0000000000u);
  EXPECT_EQ(trace->module_for(0x600000), nullptr);
  EXPECT_EQ(trace->module_for(0x1000), nullptr);

  EXPECT_EQ(trace->thread_names.at(7), "main");
  EXPECT_EQ(trace->thread_names.at(8), "");

  ASSERT_EQ(trace->process_info.size(), 3u);
  EXPECT_EQ(trace->process_info[0], std::make_pair(std::string("argv"), std::string("prog --flag")));
  EXPECT_EQ(trace->info("argv"), "prog --flag");
  EXPECT_EQ(trace->info("cuda_runtime"), "real");
  EXPECT_EQ(trace->info("empty"), "");
  EXPECT_EQ(trace->info("missing"), "");

  ASSERT_EQ(trace->python_code.size(), 2u);
  EXPECT_EQ(trace->python_code.at(11).file, "/home/u/train.py");
  EXPECT_EQ(trace->python_code.at(11).function, "train_step");
  EXPECT_EQ(trace->python_code.at(11).first_line, 40u);
  EXPECT_EQ(trace->python_code.at(12).function, "");
  ASSERT_EQ(trace->python_stacks.count(1), 1u);
  ASSERT_EQ(trace->python_stacks.at(1).size(), 2u);
  EXPECT_EQ(trace->python_stacks.at(1)[0].code_id, 11u);
  EXPECT_EQ(trace->python_stacks.at(1)[0].line, 42u);
  EXPECT_EQ(trace->python_stacks.at(1)[1].code_id, 12u);
  EXPECT_EQ(trace->python_stacks.at(1)[1].line, 1u);

  EXPECT_EQ(trace->events_dropped, 5u);  // from the end record
  EXPECT_EQ(trace->stacks_dropped, 2u);
}

TEST(TraceRoundTrip, RecordsArePaddedWithZerosToEightBytes) {
  std::string dir = temp_dir("padding");
  std::string error;
  TraceWriter w;
  ASSERT_TRUE(w.open(dir, make_header(3), &error)) << error;
  w.add_thread(1, "abc");        // 8 + 3 = 11 payload bytes
  w.add_process_info("k", "v");  // 10
  EXPECT_EQ(w.buffered_bytes(), (8u + 16) + (8 + 16));
  w.close();
  auto bytes = read_bytes(w.path());
  ASSERT_EQ(bytes.size(), sizeof(FileHeader) + 48);
  auto spans = record_spans(bytes);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].size, 11u);
  EXPECT_EQ(spans[0].end - spans[0].begin, 24u);
  for (size_t i = spans[0].begin + 8 + 11; i < spans[0].end; ++i) EXPECT_EQ(bytes[i], 0) << i;
  for (size_t i = spans[1].begin + 8 + 10; i < spans[1].end; ++i) EXPECT_EQ(bytes[i], 0) << i;
}

TEST(TraceRoundTrip, EmptyRunLeavesAValidFile) {
  std::string dir = temp_dir("empty");
  std::string error;
  TraceWriter w;
  FileHeader header = make_header(9);
  // The writer owns the framing fields: a careless caller cannot break them.
  header.version = 0;
  header.header_size = 0;
  header.event_size = 0;
  std::memset(header.magic, 0, sizeof(header.magic));
  ASSERT_TRUE(w.open(dir, header, &error)) << error;
  // The header is on disk before any flush.
  EXPECT_EQ(std::filesystem::file_size(w.path()), sizeof(FileHeader));
  auto trace = read_trace_file(w.path());
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->events.empty());
  EXPECT_FALSE(trace->complete);
  EXPECT_EQ(trace->truncation, "no end record (process killed or still running)");
  EXPECT_EQ(trace->header.pid, 9u);
  w.close();
  struct stat st {};
  ASSERT_EQ(stat(w.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "only its owner reads a trace (it holds the command line)";
}

TEST(TraceRoundTrip, SamePidGetsTheNextFreeNumber) {
  std::string dir = temp_dir("names");
  std::string error;
  TraceWriter a, b;
  ASSERT_TRUE(a.open(dir, make_header(77), &error)) << error;
  ASSERT_TRUE(b.open(dir, make_header(77), &error)) << error;
  EXPECT_EQ(std::filesystem::path(a.path()).filename(), "77-0.sstrace");
  EXPECT_EQ(std::filesystem::path(b.path()).filename(), "77-1.sstrace");
  // A file left by someone else is never overwritten either.
  { std::ofstream(dir + "/77-2.sstrace") << "not mine"; }
  TraceWriter c;
  ASSERT_TRUE(c.open(dir, make_header(77), &error)) << error;
  EXPECT_EQ(std::filesystem::path(c.path()).filename(), "77-3.sstrace");
  std::ifstream in(dir + "/77-2.sstrace");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "not mine");
  // Each file is its own process's trace.
  a.add_thread(1, "a");
  b.add_thread(2, "b");
  a.close();
  b.close();
  EXPECT_EQ(read_trace_file(a.path())->thread_names.count(1), 1u);
  EXPECT_EQ(read_trace_file(b.path())->thread_names.count(2), 1u);
  EXPECT_EQ(read_trace_file(b.path())->thread_names.count(1), 0u);
}

TEST(TraceRoundTrip, CreatesMissingDirectories) {
  std::string base = temp_dir("mkdirp");
  std::string dir = base + "/a/b/c/";
  std::string error;
  TraceWriter w;
  ASSERT_TRUE(w.open(dir, make_header(5), &error)) << error;
  EXPECT_TRUE(std::filesystem::is_regular_file(base + "/a/b/c/5-0.sstrace"));
  TraceWriter again;  // existing directories are fine
  ASSERT_TRUE(again.open(base + "/a/b/c", make_header(5), &error)) << error;
  EXPECT_TRUE(std::filesystem::is_regular_file(base + "/a/b/c/5-1.sstrace"));
}

TEST(TraceRoundTrip, UnwritableDirectoryIsAnErrorNotACrash) {
  TraceWriter w;
  std::string error;
  EXPECT_FALSE(w.open("/proc/syncscope-cannot-exist", make_header(1), &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(w.is_open());
  // A path component that is a file.
  std::string dir = temp_dir("notdir");
  std::filesystem::create_directories(dir);
  { std::ofstream(dir + "/file") << "x"; }
  error.clear();
  EXPECT_FALSE(w.open(dir + "/file/sub", make_header(1), &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(w.open(dir + "/file/sub", make_header(1), nullptr));  // a null error pointer is fine
  // Nothing buffered, nothing written, no crash.
  w.add_thread(1, "x");
  EXPECT_TRUE(w.flush(&error));
}

TEST(TraceRoundTrip, MissingFilesAreErrors) {
  auto files = list_trace_files("/nonexistent/syncscope");
  EXPECT_FALSE(files.ok());
  auto trace = read_trace_file("/nonexistent/x.sstrace");
  ASSERT_FALSE(trace.ok());
  EXPECT_TRUE(absl::IsNotFound(trace.status())) << trace.status();
  EXPECT_NE(std::string(trace.status().message()).find("/nonexistent/x.sstrace"), std::string::npos);
}

TEST(TraceRoundTrip, LongStringsAndDeepStacksAreCut) {
  std::string dir = temp_dir("caps");
  std::string error;
  TraceWriter w;
  ASSERT_TRUE(w.open(dir, make_header(6), &error)) << error;
  std::string long_path(10000, 'p');
  w.add_module(1, 2, 0, long_path);
  std::vector<unsigned char> long_build_id(kMaxBuildIdLen + 6, 0xab);
  w.add_module_build_id(1, long_build_id.data(), static_cast<uint32_t>(long_build_id.size()));
  w.add_thread(1, std::string(1000, 't'));
  std::vector<uint64_t> pcs(kMaxStackDepth + 10);
  for (size_t i = 0; i < pcs.size(); ++i) pcs[i] = 0x1000 + i;
  w.add_stack(1, pcs.data(), static_cast<uint32_t>(pcs.size()));
  std::vector<uint64_t> frames(kMaxPythonDepth + 10, (uint64_t{1} << 32) | 7);
  w.add_python_stack(1, frames.data(), static_cast<uint32_t>(frames.size()));
  w.add_end(EndPayload{});
  w.close();
  auto trace = read_trace_file(w.path());
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->complete) << trace->truncation;
  ASSERT_EQ(trace->modules.size(), 1u);
  EXPECT_EQ(trace->modules[0].path, std::string(4096, 'p'));
  std::string cut_hex;
  for (uint32_t i = 0; i < kMaxBuildIdLen; ++i) cut_hex += "ab";
  EXPECT_EQ(trace->modules[0].build_id, cut_hex);  // cut to kMaxBuildIdLen bytes
  EXPECT_EQ(trace->thread_names.at(1), std::string(256, 't'));
  ASSERT_EQ(trace->stacks.at(1).size(), kMaxStackDepth);  // innermost frames kept
  EXPECT_EQ(trace->stacks.at(1)[0], 0x1000u);
  EXPECT_EQ(trace->python_stacks.at(1).size(), kMaxPythonDepth);
}

TEST(TraceRoundTrip, LargeEventBatchesAreSplitIntoRecords) {
  constexpr size_t kPerRecord = kMaxRecordPayload / sizeof(Event);
  const size_t count = kPerRecord + 3;
  std::vector<Event> events(count);
  for (size_t i = 0; i < count; ++i) events[i] = make_event(1, i, i + 1);
  std::string dir = temp_dir("split");
  std::string error;
  TraceWriter w;
  ASSERT_TRUE(w.open(dir, make_header(8), &error)) << error;
  w.add_events(events.data(), count);
  EXPECT_EQ(w.buffered_bytes(), 2 * sizeof(RecordHeader) + count * sizeof(Event));
  w.add_end(EndPayload{});
  w.close();
  std::ifstream in(w.path(), std::ios::binary);
  RecordHeader first{}, second{};
  in.seekg(sizeof(FileHeader));
  in.read(reinterpret_cast<char*>(&first), sizeof(first));
  in.seekg(static_cast<std::streamoff>(sizeof(FileHeader) + sizeof(RecordHeader) + kMaxRecordPayload));
  in.read(reinterpret_cast<char*>(&second), sizeof(second));
  ASSERT_TRUE(in);
  EXPECT_EQ(first.type, static_cast<uint32_t>(RecordType::kEvents));
  EXPECT_EQ(first.size, kMaxRecordPayload);
  EXPECT_EQ(second.type, static_cast<uint32_t>(RecordType::kEvents));
  EXPECT_EQ(second.size, 3 * sizeof(Event));
  auto trace = read_trace_file(w.path());
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->complete) << trace->truncation;
  ASSERT_EQ(trace->events.size(), count);
  EXPECT_EQ(trace->events.back().start_ns, count - 1);
}

TEST(TraceRoundTrip, EventsAreSortedStably) {
  std::string dir = temp_dir("sorted");
  std::string error;
  TraceWriter w;
  ASSERT_TRUE(w.open(dir, make_header(2), &error)) << error;
  // Per-thread batches arrive interleaved; equal start times keep file order.
  Event t1[3] = {make_event(1, 10, 11), make_event(2, 30, 31), make_event(3, 50, 51)};
  Event t2[3] = {make_event(4, 20, 21), make_event(5, 30, 32), make_event(6, 40, 41)};
  Event t3[2] = {make_event(7, 5, 6), make_event(8, 30, 33)};
  w.add_events(t1, 3);
  w.add_events(t2, 3);
  ASSERT_TRUE(w.flush(&error));
  w.add_events(t3, 2);
  w.close();
  auto trace = read_trace_file(w.path());
  ASSERT_TRUE(trace.ok()) << trace.status();
  std::vector<uint16_t> order;
  for (const Event& e : trace->events) order.push_back(e.api);
  EXPECT_EQ(order, (std::vector<uint16_t>{7, 1, 4, 2, 5, 8, 6, 3}));
  EXPECT_TRUE(std::is_sorted(trace->events.begin(), trace->events.end(),
                             [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; }));
}

TEST(TraceRoundTrip, DropsWithoutEndAreTheSumOfEachThreadsLastCount) {
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
  EXPECT_EQ(trace->truncation, "no end record (process killed or still running)");
  EXPECT_EQ(trace->events_dropped, 14u);
  EXPECT_EQ(trace->stacks_dropped, 0u);
}

TEST(TraceRoundTrip, EndRecordGivesTheDropTotal) {
  std::string dir = temp_dir("drops-end");
  std::string error;
  TraceWriter w;
  ASSERT_TRUE(w.open(dir, make_header(1), &error));
  w.add_drops(1, 3);
  w.add_drops(2, 4);
  // Threads that exited had their rings freed: the end record knows them all.
  w.add_end(EndPayload{5, 0, 20, 1});
  w.close();
  auto trace = read_trace_file(w.path());
  ASSERT_TRUE(trace.ok());
  EXPECT_TRUE(trace->complete);
  EXPECT_EQ(trace->events_dropped, 20u);
  EXPECT_EQ(trace->stacks_dropped, 1u);
}

TEST(TraceRoundTrip, CloseWithoutFlushWritesNothingMore) {
  std::string dir = temp_dir("noflush");
  std::string error;
  TraceWriter w;
  ASSERT_TRUE(w.open(dir, make_header(1), &error));
  Event e = make_event(1, 1, 2);
  w.add_events(&e, 1);
  ASSERT_TRUE(w.flush(&error));
  w.add_events(&e, 1);  // a forked child's copy of the buffer
  w.close_without_flush();
  EXPECT_EQ(w.buffered_bytes(), 0u);
  auto trace = read_trace_file(w.path());
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(trace->events.size(), 1u);
}

TEST(TraceRoundTrip, ReaderSkipsUnknownRecordTypes) {
  std::string dir = temp_dir("unknown");
  std::filesystem::create_directories(dir);
  RawTrace raw(make_header(1));
  Event a = make_event(1, 1, 2), b = make_event(2, 3, 4);
  raw.add_events(&a, 1);
  raw.add(1000u, "future payload", 13);  // odd size: padding must be honoured
  raw.add(0u, nullptr, 0);
  raw.add_events(&b, 1);
  raw.add_end(2, 0);
  raw.save(dir + "/x.sstrace");
  auto trace = read_trace_file(dir + "/x.sstrace");
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->complete) << trace->truncation;
  ASSERT_EQ(trace->events.size(), 2u);
  EXPECT_TRUE(same_event(trace->events[1], b));
}

TEST(TraceRoundTrip, ReaderAcceptsLongerHeadersAndEvents) {
  // A newer writer may grow FileHeader and Event: the reader skips the extra
  // header bytes and reads the first 64 bytes of each event.
  std::string dir = temp_dir("growth");
  std::filesystem::create_directories(dir);
  FileHeader h = make_header(1);
  h.header_size = sizeof(FileHeader) + 16;
  h.event_size = sizeof(Event) + 8;
  RawTrace raw(h);
  raw.bytes.resize(raw.bytes.size() + 16, 0xAB);
  Payload events;
  Event e1 = make_event(9, 20, 21), e2 = make_event(10, 10, 11);
  e1.bytes = 777;
  uint64_t extra = 0xEEEEEEEEEEEEEEEEull;
  events.raw(&e1, sizeof(e1)).u64(extra).raw(&e2, sizeof(e2)).u64(extra);
  raw.add(RecordType::kEvents, events.bytes);
  raw.add_end(2, 0);
  raw.save(dir + "/x.sstrace");
  auto trace = read_trace_file(dir + "/x.sstrace");
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->complete) << trace->truncation;
  ASSERT_EQ(trace->events.size(), 2u);
  EXPECT_TRUE(same_event(trace->events[0], e2));
  EXPECT_TRUE(same_event(trace->events[1], e1));
}

TEST(TraceRoundTrip, ListTraceFilesBySuffixSortedByName) {
  std::string dir = temp_dir("list");
  std::filesystem::create_directories(dir + "/sub.sstrace");  // a directory: not a trace
  for (const char* name :
       {"20-0.sstrace", "100-1.sstrace", "100-0.sstrace", "notes.txt", ".sstrace", "x.sstrace.tmp", "sstrace"}) {
    std::ofstream(dir + "/" + name) << "x";
  }
  auto files = list_trace_files(dir);
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(*files, (std::vector<std::string>{dir + "/100-0.sstrace", dir + "/100-1.sstrace", dir + "/20-0.sstrace"}));
  std::string empty = temp_dir("list-empty");
  std::filesystem::create_directories(empty);
  auto none = list_trace_files(empty);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace syncscope::testing
