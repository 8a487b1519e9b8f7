// A trace read in windows (trace/trace_stream.h): every event comes out
// once, in start order, the windows as large as asked, and the tables, drop
// counts and truncation are those of read_trace_file; a file read through
// the sliding window (trace/byte_source.h) parses as from memory.
#include "trace/trace_stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "trace/api.h"
#include "trace/reader.h"
#include "trace/writer.h"
#include "trace_test_util.h"

namespace syncscope {
namespace {

using namespace syncscope::testing;

constexpr uint64_t kSecond = 1000000000ull;

// Two threads' events over `seconds`, written as a recorder drains them:
// records of each thread in turn, a thread's events reaching the file up to
// `late_ns` after events of the other that began later; stacks after the
// events that use them; an end record.
std::string write_two_threads(const std::string& dir, int seconds, uint64_t late_ns, std::vector<Event>* all) {
  TraceWriter w;
  std::string error;
  EXPECT_TRUE(w.open(dir, make_header(42), &error)) << error;
  std::mt19937_64 rng(7);
  std::vector<Event> pending_a, pending_b;
  uint64_t flushed_b_until = 0;
  const uint64_t step = 200000;  // an event every 0.2 ms per thread
  for (uint64_t t = kSecond; t < kSecond * (1 + static_cast<uint64_t>(seconds)); t += step) {
    Event a = make_event(static_cast<uint16_t>(ApiId::cudaLaunchKernel), t, t + 1000);
    a.tid = 1;
    a.dst = rng() % 5;
    Event b = make_event(static_cast<uint16_t>(ApiId::cudaStreamSynchronize), t + step / 2, t + step / 2 + 5000,
                         /*stack=*/1 + static_cast<uint32_t>(rng() % 3));
    b.tid = 2;
    pending_a.push_back(a);
    pending_b.push_back(b);
    all->push_back(a);
    all->push_back(b);
    if (pending_a.size() == 250) {  // thread 1 drained every 50 ms
      w.add_events(pending_a.data(), pending_a.size());
      pending_a.clear();
    }
    if (b.start_ns >= flushed_b_until + late_ns) {  // thread 2 reaches the file late_ns behind
      w.add_events(pending_b.data(), pending_b.size());
      pending_b.clear();
      flushed_b_until = b.start_ns;
      for (uint32_t id = 1; id <= 3; ++id) {
        const uint64_t pcs[2] = {0x1000 + id, 0x2000};
        w.add_stack(id, pcs, 2);
      }
    }
  }
  w.add_events(pending_a.data(), pending_a.size());
  w.add_events(pending_b.data(), pending_b.size());
  w.add_thread(1, "main");
  w.add_process_info("argv", "python train.py");
  w.add_end(EndPayload{0, 0, 0, 0});
  EXPECT_TRUE(w.flush(&error)) << error;
  w.close();
  std::stable_sort(all->begin(), all->end(), [](const Event& x, const Event& y) { return x.start_ns < y.start_ns; });
  return w.path();
}

TEST(TraceStream, EveryEventComesOutOnceInOrderWindowByWindow) {
  std::vector<Event> all;
  const std::string path = write_two_threads(temp_dir("stream-order"), 30, 2 * kSecond, &all);
  auto whole = read_trace_file(path);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_EQ(whole->events.size(), all.size());

  auto stream = TraceStream::open(path, {});
  ASSERT_TRUE(stream.ok()) << stream.status();
  EXPECT_EQ((*stream)->counted_events(), all.size());
  std::vector<Event> window, out;
  size_t windows = 0;
  while ((*stream)->next(20000, &window)) {
    ++windows;
    EXPECT_LE(window.size(), 20000u);
    EXPECT_TRUE(std::is_sorted(window.begin(), window.end(),
                               [](const Event& x, const Event& y) { return x.start_ns < y.start_ns; }));
    if (!(*stream)->done()) EXPECT_EQ(window.size(), 20000u) << "only the last window is short";
    out.insert(out.end(), window.begin(), window.end());
  }
  EXPECT_TRUE((*stream)->done());
  EXPECT_EQ(windows, (all.size() + 19999) / 20000);
  // Thread 2 reaches the file 2 s late, within the stream's lag: the
  // windows hold the events exactly as the whole trace does.
  ASSERT_EQ(out.size(), all.size());
  for (size_t i = 0; i < out.size(); ++i) ASSERT_TRUE(same_event(out[i], whole->events[i])) << i;
  // The tables, at the end, are the whole trace's.
  ProcessTrace& tables = (*stream)->tables();
  EXPECT_TRUE(tables.events.empty());
  EXPECT_EQ(tables.stacks.size(), whole->stacks.size());
  EXPECT_EQ(tables.thread_names, whole->thread_names);
  EXPECT_EQ(tables.info("argv"), "python train.py");
  EXPECT_TRUE(tables.complete);
}

// A thread whose events reach the file later than the stream's lag: they
// come out in a later window, out of order there, and none is lost.
TEST(TraceStream, EventsLaterThanTheLagComeOutInALaterWindow) {
  std::vector<Event> all;
  const std::string path = write_two_threads(temp_dir("stream-late"), 40, 15 * kSecond, &all);
  auto stream = TraceStream::open(path, {});
  ASSERT_TRUE(stream.ok()) << stream.status();
  std::vector<Event> window, out;
  while ((*stream)->next(30000, &window)) out.insert(out.end(), window.begin(), window.end());
  ASSERT_EQ(out.size(), all.size());
  EXPECT_FALSE(std::is_sorted(out.begin(), out.end(),
                              [](const Event& x, const Event& y) { return x.start_ns < y.start_ns; }));
  std::stable_sort(out.begin(), out.end(), [](const Event& x, const Event& y) { return x.start_ns < y.start_ns; });
  for (size_t i = 0; i < out.size(); ++i) ASSERT_TRUE(same_event(out[i], all[i])) << i;
}

// Cut anywhere, the stream keeps what the whole reader keeps and says the same.
TEST(TraceStream, ACutFileGivesWhatTheWholeReaderGives) {
  std::vector<Event> all;
  const std::string path = write_two_threads(temp_dir("stream-cut"), 5, kSecond / 2, &all);
  const std::vector<unsigned char> bytes = read_bytes(path);
  const std::string cut = temp_dir("stream-cut-2") + ".sstrace";
  for (size_t size : {bytes.size() / 3, bytes.size() / 2 + 13, bytes.size() - 9}) {
    SCOPED_TRACE(size);
    write_bytes(cut, bytes, size);
    auto whole = read_trace_file(cut);
    ASSERT_TRUE(whole.ok()) << whole.status();
    auto stream = TraceStream::open(cut, {});
    ASSERT_TRUE(stream.ok()) << stream.status();
    std::vector<Event> window, out;
    while ((*stream)->next(1000, &window)) out.insert(out.end(), window.begin(), window.end());
    ASSERT_EQ(out.size(), whole->events.size());
    EXPECT_EQ((*stream)->tables().truncation, whole->truncation);
    EXPECT_FALSE((*stream)->tables().complete);
  }
}

// The file read through the sliding window (4 MiB, records crossing its
// edge) parses as the same bytes from memory do.
TEST(TraceStream, AFileLargerThanTheReadWindowParsesAsFromMemory) {
  std::vector<Event> all;
  const std::string path = write_two_threads(temp_dir("stream-window"), 60, kSecond / 4, &all);
  const std::vector<unsigned char> bytes = read_bytes(path);
  ASSERT_GT(bytes.size(), 2 * FileBytes::kWindowBytes);
  auto from_file = read_trace_file(path);
  auto from_memory =
      read_trace_bytes(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
  ASSERT_TRUE(from_file.ok() && from_memory.ok());
  ASSERT_EQ(from_file->events.size(), from_memory->events.size());
  for (size_t i = 0; i < from_file->events.size(); ++i) {
    ASSERT_TRUE(same_event(from_file->events[i], from_memory->events[i])) << i;
  }
  EXPECT_EQ(from_file->truncation, from_memory->truncation);
  EXPECT_TRUE(from_file->complete);
}

TEST(TraceStream, OpenGivesTheReadersErrors) {
  auto missing = TraceStream::open(temp_dir("stream-missing") + "/none.sstrace", {});
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  const std::string dir = temp_dir("stream-notrace");
  std::filesystem::create_directories(dir);
  write_bytes(dir + "/x.sstrace", std::vector<unsigned char>(100, 'x'));
  auto foreign = TraceStream::open(dir + "/x.sstrace", {});
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(std::string(foreign.status().message()).find("not a syncscope trace"), std::string::npos);
  auto directory = TraceStream::open(dir, {});
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(std::string(directory.status().message()).find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace syncscope
