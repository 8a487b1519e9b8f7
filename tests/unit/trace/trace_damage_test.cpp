// A trace cut short (the process was killed) or damaged must give back every
// complete record before the damage, say what happened, and never crash.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "tests/unit/trace/trace_test_util.h"
#include "trace/api.h"
#include "trace/reader.h"

namespace syncscope::testing {
namespace {

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::vector<char>& bytes, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(size));
}

// A small trace: three event records of 2 events each, a stack, an end.
std::string write_sample(const std::string& dir) {
  std::string error;
  TraceWriter w;
  EXPECT_TRUE(w.open(dir, make_header(5), &error));
  for (int r = 0; r < 3; ++r) {
    Event e[2] = {make_event(1, 10 * r, 10 * r + 1), make_event(2, 10 * r + 5, 10 * r + 6)};
    w.add_events(e, 2);
  }
  uint64_t pcs[] = {1, 2};
  w.add_stack(1, pcs, 2);
  w.add_end(EndPayload{1, 6, 0, 0});
  w.close();
  return w.path();
}

TEST(TraceDamage, CutAtEveryByteKeepsEveryCompleteRecord) {
  std::string dir = temp_dir("cut");
  std::string path = write_sample(dir);
  std::vector<char> bytes = read_bytes(path);
  const size_t header = sizeof(FileHeader);
  const size_t event_record = sizeof(RecordHeader) + 2 * sizeof(Event);
  std::string cut = dir + "/cut.sstrace";
  for (size_t size = 0; size < bytes.size(); ++size) {
    write_bytes(cut, bytes, size);
    auto trace = read_trace_file(cut);
    if (size < header) {
      EXPECT_FALSE(trace.ok()) << size;
      continue;
    }
    ASSERT_TRUE(trace.ok()) << size << ": " << trace.status();
    EXPECT_FALSE(trace->complete) << size;
    EXPECT_FALSE(trace->truncation.empty()) << size;
    size_t whole_event_records = std::min<size_t>(3, (size - header) / event_record);
    EXPECT_EQ(trace->events.size(), 2 * whole_event_records) << size;
  }
  write_bytes(cut, bytes, bytes.size());
  auto whole = read_trace_file(cut);
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(whole->complete);
  EXPECT_EQ(whole->events.size(), 6u);
}

TEST(TraceDamage, ForeignAndWrongVersionFilesAreClearErrors) {
  std::string dir = temp_dir("foreign");
  std::filesystem::create_directories(dir);
  std::string path = dir + "/x.sstrace";
  std::vector<char> junk(200, 'x');
  write_bytes(path, junk, junk.size());
  auto trace = read_trace_file(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(std::string(trace.status().message()).find("not a syncscope trace"), std::string::npos);

  std::string good = write_sample(dir);
  std::vector<char> bytes = read_bytes(good);
  uint32_t version = 99;
  std::memcpy(bytes.data() + 8, &version, 4);
  write_bytes(path, bytes, bytes.size());
  trace = read_trace_file(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(std::string(trace.status().message()).find("unsupported trace version 99"), std::string::npos);
}

TEST(TraceDamage, CorruptRecordInTheMiddleKeepsWhatCameBefore) {
  std::string dir = temp_dir("middle");
  std::string path = write_sample(dir);
  std::vector<char> bytes = read_bytes(path);
  // Second record's size field: absurd.
  size_t second = sizeof(FileHeader) + sizeof(RecordHeader) + 2 * sizeof(Event);
  uint32_t huge = 0xFFFFFFF0u;
  std::memcpy(bytes.data() + second + 4, &huge, 4);
  write_bytes(path, bytes, bytes.size());
  auto trace = read_trace_file(path);
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(trace->events.size(), 2u);
  EXPECT_FALSE(trace->complete);
  EXPECT_NE(trace->truncation.find("corrupt record at offset"), std::string::npos) << trace->truncation;
}

TEST(TraceDamage, RandomMutationsNeverCrash) {
  std::string dir = temp_dir("fuzz");
  std::string path = write_sample(dir);
  const std::vector<char> original = read_bytes(path);
  std::mt19937 rng(12345);
  std::string mutated = dir + "/m.sstrace";
  int readable = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<char> bytes = original;
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    size_t size = rng() % 4 == 0 ? rng() % (bytes.size() + 1) : bytes.size();
    write_bytes(mutated, bytes, size);
    auto trace = read_trace_file(mutated);
    if (trace.ok()) {
      ++readable;
      EXPECT_LE(trace->events.size(), 6u + 64);
    }
  }
  EXPECT_GT(readable, 0);
}

}  // namespace
}  // namespace syncscope::testing
