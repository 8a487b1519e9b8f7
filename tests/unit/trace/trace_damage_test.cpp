// A trace cut short (the process was killed) or damaged must give back every
// complete record before the damage, say what happened, and never crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include "tests/unit/trace/trace_test_util.h"
#include "trace/api.h"
#include "trace/launch_runs.h"
#include "trace/reader.h"

namespace syncscope::testing {
namespace {

// A small trace holding every record type, events spread over three records,
// and drops from two threads, a launch sequence and two runs of it; ends
// with kEnd. 19 records.
std::string write_sample(const std::string& dir, std::vector<Event>* written = nullptr) {
  std::string error;
  TraceWriter w;
  EXPECT_TRUE(w.open(dir, make_header(5), &error)) << error;
  uint64_t t = 100;
  std::vector<Event> all;
  auto events = [&](size_t n) {
    std::vector<Event> batch;
    for (size_t i = 0; i < n; ++i, t += 10) batch.push_back(make_event(static_cast<uint16_t>(1 + t % 40), t, t + 5));
    w.add_events(batch.data(), batch.size());
    all.insert(all.end(), batch.begin(), batch.end());
  };
  w.add_process_info("argv", "python train.py");
  w.add_process_info("exe", "/usr/bin/python3");
  w.add_thread(7, "python3");
  events(3);
  uint64_t pcs[] = {0x401000, 0x402000, 0x403000};
  w.add_stack(1, pcs, 3);
  w.add_module(0x400000, 0x500000, 0, "/usr/bin/python3");
  const unsigned char build_id[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
  w.add_module_build_id(0x400000, build_id, sizeof(build_id));
  w.add_python_code(1, 10, "train.py", "step");
  uint64_t frames[] = {(uint64_t{1} << 32) | 12};
  w.add_python_stack(1, frames, 1);
  w.add_drops(7, 2);
  EXPECT_TRUE(w.flush(&error)) << error;
  events(2);
  w.add_thread(8, "worker");
  w.add_drops(7, 5);
  w.add_drops(8, 1);
  w.add_stack(2, pcs, 1);
  events(1);
  // Aggregated launches, after every event: the reader puts them back in order.
  std::vector<Event> shapes = {make_event(12, 0, 0), make_event(12, 0, 0), make_event(13, 0, 0)};
  for (Event& e : shapes) e = launch_shape(e);
  EXPECT_TRUE(w.add_launch_sequence(4, shapes.data(), 3));
  LaunchRun runs[2] = {{t, t + 20, t + 25, 9, 7, 4}, {t + 100, t + 130, t + 131, 6, 8, 4}};
  EXPECT_EQ(w.add_launch_runs(runs, 2), 2u);
  for (const LaunchRun& r : runs) expand_launch_run(r, shapes.data(), shapes.size(), &all);
  w.add_end(EndPayload{1, 12, 9, 0});
  w.close();
  if (written != nullptr) *written = all;
  return w.path();
}

// What a reader must return for a file holding exactly `spans`.
struct Expected {
  uint32_t sequence_length = 0;
  size_t events = 0, stacks = 0, modules = 0, build_ids = 0, threads = 0, process = 0, py_code = 0, py_stacks = 0;
  uint64_t dropped = 0;
  bool end = false;
};

Expected expected_for(const std::vector<unsigned char>& bytes, const std::vector<RecordSpan>& spans) {
  Expected x;
  std::map<uint32_t, uint64_t> drops;
  for (const RecordSpan& s : spans) {
    const unsigned char* p = bytes.data() + s.begin + sizeof(RecordHeader);
    switch (static_cast<RecordType>(s.type)) {
      case RecordType::kEvents:
        x.events += s.size / sizeof(Event);
        break;
      case RecordType::kStack:
        ++x.stacks;
        break;
      case RecordType::kLaunchSequence:
        std::memcpy(&x.sequence_length, p + 4, 4);
        break;
      case RecordType::kLaunchRuns:
        x.events += s.size / sizeof(LaunchRun) * x.sequence_length;
        break;
      case RecordType::kModule:
        ++x.modules;
        break;
      case RecordType::kModuleBuildId:
        ++x.build_ids;
        break;  // its module always precedes it
      case RecordType::kThread:
        ++x.threads;
        break;
      case RecordType::kProcess:
        ++x.process;
        break;
      case RecordType::kPyCode:
        ++x.py_code;
        break;
      case RecordType::kPyStack:
        ++x.py_stacks;
        break;
      case RecordType::kGpuActivity:  // not written by these tests (gpu_timeline_trace_test.cpp)
      case RecordType::kString:
        break;
      case RecordType::kDrops: {
        uint32_t tid;
        uint64_t n;
        std::memcpy(&tid, p, 4);
        std::memcpy(&n, p + 8, 8);
        drops[tid] = n;
        break;
      }
      case RecordType::kEnd: {
        EndPayload end;
        std::memcpy(&end, p, sizeof(end));
        x.end = true;
        x.dropped = end.events_dropped;
        break;
      }
    }
  }
  if (!x.end) {
    for (const auto& [tid, n] : drops) x.dropped += n;
  }
  return x;
}

TEST(TraceDamage, CutAtEveryByteKeepsEveryCompleteRecord) {
  std::string dir = temp_dir("cut");
  std::vector<Event> written;
  std::string path = write_sample(dir, &written);
  const std::vector<unsigned char> bytes = read_bytes(path);
  const std::vector<RecordSpan> all = record_spans(bytes);
  ASSERT_EQ(all.size(), 19u);
  ASSERT_EQ(all.back().end, bytes.size());
  std::string cut = dir + "/cut.sstrace";
  for (size_t size = 0; size <= bytes.size(); ++size) {
    write_bytes(cut, bytes, size);
    auto trace = read_trace_file(cut);
    if (size < sizeof(FileHeader)) {
      ASSERT_FALSE(trace.ok()) << size;
      continue;
    }
    ASSERT_TRUE(trace.ok()) << size << ": " << trace.status();
    std::vector<RecordSpan> whole;
    const RecordSpan* partial = nullptr;
    for (const RecordSpan& s : all) {
      if (s.end <= size) {
        whole.push_back(s);
      } else if (s.begin < size) {
        partial = &s;
      }
    }
    Expected x = expected_for(bytes, whole);
    EXPECT_EQ(trace->complete, size == bytes.size()) << size;
    if (size == bytes.size()) {
      EXPECT_EQ(trace->truncation, "") << size;
    } else if (partial != nullptr) {
      EXPECT_EQ(trace->truncation,
                "file ends inside a record at offset " + std::to_string(partial->begin) + " (process killed?)")
          << size;
    } else {
      EXPECT_EQ(trace->truncation, "no end record (process killed or still running)") << size;
    }
    ASSERT_EQ(trace->events.size(), x.events) << size;
    for (size_t i = 0; i < x.events; ++i) EXPECT_TRUE(same_event(trace->events[i], written[i])) << size << " " << i;
    EXPECT_EQ(trace->stacks.size(), x.stacks) << size;
    EXPECT_EQ(trace->modules.size(), x.modules) << size;
    for (const Module& m : trace->modules) {
      EXPECT_EQ(m.build_id, x.build_ids > 0 ? "0102030405060708090a0b0c0d0e0f1011121314" : "") << size;
    }
    EXPECT_EQ(trace->thread_names.size(), x.threads) << size;
    EXPECT_EQ(trace->process_info.size(), x.process) << size;
    EXPECT_EQ(trace->python_code.size(), x.py_code) << size;
    EXPECT_EQ(trace->python_stacks.size(), x.py_stacks) << size;
    EXPECT_EQ(trace->events_dropped, x.dropped) << size;
  }
}

std::string status_text(const absl::StatusOr<ProcessTrace>& trace) { return std::string(trace.status().message()); }

TEST(TraceDamage, BadHeadersAreClearErrors) {
  std::string dir = temp_dir("headers");
  std::string good = write_sample(dir);
  const std::vector<unsigned char> original = read_bytes(good);
  std::string path = dir + "/x.sstrace";

  auto read_modified = [&](size_t offset, uint32_t value) {
    std::vector<unsigned char> bytes = original;
    std::memcpy(bytes.data() + offset, &value, 4);
    write_bytes(path, bytes);
    return read_trace_file(path);
  };

  std::vector<unsigned char> junk(200, 'x');
  write_bytes(path, junk);
  auto trace = read_trace_file(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(status_text(trace), "not a syncscope trace: " + path);

  write_bytes(path, junk, 0);  // empty file
  EXPECT_EQ(status_text(read_trace_file(path)), "not a syncscope trace: " + path);

  trace = read_modified(8, 99);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(status_text(trace).find("unsupported trace version 99, this reader understands 1"), std::string::npos)
      << status_text(trace);
  EXPECT_NE(status_text(trace).find(path), std::string::npos);

  trace = read_modified(12, 32);  // header_size below 64
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(status_text(trace).find("header_size 32"), std::string::npos) << status_text(trace);

  trace = read_modified(12, 0xFFFFFFFF);  // header_size beyond the file
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(status_text(trace).find("ends inside the trace header"), std::string::npos) << status_text(trace);

  for (uint32_t event_size : {0u, 32u, 63u, 1u << 20, 0xFFFFFFFFu}) {
    trace = read_modified(40, event_size);
    ASSERT_FALSE(trace.ok()) << event_size;
    EXPECT_NE(status_text(trace).find("unsupported event size " + std::to_string(event_size)), std::string::npos)
        << status_text(trace);
  }

  // Cut inside the header, with the magic intact.
  write_bytes(path, original, 40);
  trace = read_trace_file(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(status_text(trace).find("ends inside the trace header"), std::string::npos) << status_text(trace);

  // A directory is not a trace.
  trace = read_trace_file(dir);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(status_text(trace).find("not a syncscope trace"), std::string::npos) << status_text(trace);
}

// [events(2)] [damaged record] [events(2)] [end]: the first two events come
// back, the damage is named with its offset, nothing after it is read.
void expect_corrupt_in_the_middle(RecordType type, const std::vector<unsigned char>& payload,
                                  const std::string& reason) {
  SCOPED_TRACE(reason);
  std::string dir = temp_dir("middle");
  std::filesystem::create_directories(dir);
  RawTrace raw(make_header(1));
  Event before[2] = {make_event(1, 10, 11), make_event(2, 20, 21)};
  Event after[2] = {make_event(3, 30, 31), make_event(4, 40, 41)};
  raw.add_events(before, 2);
  size_t bad = raw.add(type, payload);
  raw.add_events(after, 2);
  raw.add_end(4, 0);
  raw.save(dir + "/x.sstrace");
  auto trace = read_trace_file(dir + "/x.sstrace");
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_FALSE(trace->complete);
  ASSERT_EQ(trace->events.size(), 2u);
  EXPECT_TRUE(same_event(trace->events[0], before[0]));
  EXPECT_EQ(trace->truncation, "corrupt record at offset " + std::to_string(bad) + ": " + reason);
}

TEST(TraceDamage, InconsistentPayloadsStopTheReadKeepingWhatCameBefore) {
  expect_corrupt_in_the_middle(RecordType::kEvents, std::vector<unsigned char>(100),
                               "events payload of 100 bytes is not a multiple of the event size 64");
  expect_corrupt_in_the_middle(RecordType::kStack, Payload().u32(1).u32(5).u64(1).bytes,
                               "stack of depth 5 does not fit its record");
  expect_corrupt_in_the_middle(RecordType::kStack, Payload().u32(1).u32(kMaxStackDepth + 1).bytes,
                               "stack depth 65 exceeds 64");
  expect_corrupt_in_the_middle(RecordType::kStack, Payload().u32(1).bytes, "stack record of 4 bytes is too short");
  expect_corrupt_in_the_middle(RecordType::kModule, Payload().u64(1).u64(2).u64(0).u32(50).str("/lib").bytes,
                               "module path overruns its record");
  expect_corrupt_in_the_middle(RecordType::kModuleBuildId, Payload().u64(1).u32(21).str("0123456789").bytes,
                               "module build-id overruns its record");
  expect_corrupt_in_the_middle(RecordType::kModuleBuildId, Payload().u64(1).bytes,
                               "module build-id record of 8 bytes is too short");
  expect_corrupt_in_the_middle(RecordType::kThread, Payload().u32(1).u32(0xFFFFFFFF).str("x").bytes,
                               "thread name overruns its record");
  expect_corrupt_in_the_middle(RecordType::kProcess, Payload().u32(0xFFFFFFF0).u32(0).bytes,
                               "process key overruns its record");
  expect_corrupt_in_the_middle(RecordType::kProcess, Payload().u32(1).str("k").u32(9).str("v").bytes,
                               "process value overruns its record");
  expect_corrupt_in_the_middle(RecordType::kDrops, Payload().u32(1).u32(0).bytes,
                               "drops record of 8 bytes is too short");
  expect_corrupt_in_the_middle(RecordType::kEnd, Payload().u64(1).bytes, "end record of 8 bytes is too short");
  expect_corrupt_in_the_middle(RecordType::kPyCode, Payload().u32(1).u32(1).u32(0xFFFFFFF0).u32(0).bytes,
                               "python file name overruns its record");
  expect_corrupt_in_the_middle(RecordType::kPyCode, Payload().u32(1).u32(1).u32(1).str("f").u32(2).str("n").bytes,
                               "python function name overruns its record");
  expect_corrupt_in_the_middle(RecordType::kPyStack, Payload().u32(1).u32(kMaxPythonDepth + 1).bytes,
                               "python stack depth 49 exceeds 48");
  expect_corrupt_in_the_middle(RecordType::kPyStack, Payload().u32(1).u32(2).u64(1).bytes,
                               "python stack of depth 2 does not fit its record");
}

TEST(TraceDamage, HugeSizesAreCorruptionNotAllocations) {
  std::string dir = temp_dir("huge");
  std::filesystem::create_directories(dir);
  Event e = make_event(1, 10, 11);
  for (uint32_t size : {kMaxRecordPayload + 1, 0x80000000u, 0xFFFFFFF0u, 0xFFFFFFFFu}) {
    RawTrace raw(make_header(1));
    raw.add_events(&e, 1);
    size_t bad = raw.bytes.size();
    RecordHeader rh{static_cast<uint32_t>(RecordType::kStack), size};
    Payload tail;
    tail.raw(&rh, sizeof(rh)).raw(std::vector<unsigned char>(256).data(), 256);
    raw.bytes.insert(raw.bytes.end(), tail.bytes.begin(), tail.bytes.end());
    raw.save(dir + "/x.sstrace");
    auto trace = read_trace_file(dir + "/x.sstrace");
    ASSERT_TRUE(trace.ok()) << trace.status();
    EXPECT_EQ(trace->events.size(), 1u);
    EXPECT_FALSE(trace->complete);
    EXPECT_EQ(trace->truncation, "corrupt record at offset " + std::to_string(bad) + ": payload of " +
                                     std::to_string(size) + " bytes exceeds the limit of " +
                                     std::to_string(kMaxRecordPayload));
  }
  // At the limit but beyond the end of the file: a cut, not an allocation.
  RawTrace raw(make_header(1));
  raw.add_events(&e, 1);
  size_t last = raw.bytes.size();
  RecordHeader rh{static_cast<uint32_t>(RecordType::kEvents), kMaxRecordPayload};
  Payload tail;
  tail.raw(&rh, sizeof(rh));
  raw.bytes.insert(raw.bytes.end(), tail.bytes.begin(), tail.bytes.end());
  raw.save(dir + "/x.sstrace");
  auto trace = read_trace_file(dir + "/x.sstrace");
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_EQ(trace->events.size(), 1u);
  EXPECT_EQ(trace->truncation, "file ends inside a record at offset " + std::to_string(last) + " (process killed?)");
}

TEST(TraceDamage, RecordsAfterAnEndRecordAreStillRead) {
  // kEnd marks a clean shutdown; a reader does not stop at it.
  std::string dir = temp_dir("after-end");
  std::filesystem::create_directories(dir);
  RawTrace raw(make_header(1));
  raw.add_end(0, 0);
  Event e = make_event(1, 10, 11);
  raw.add_events(&e, 1);
  raw.save(dir + "/x.sstrace");
  auto trace = read_trace_file(dir + "/x.sstrace");
  ASSERT_TRUE(trace.ok());
  EXPECT_TRUE(trace->complete);
  EXPECT_EQ(trace->events.size(), 1u);
}

// Checks what must hold for any input the reader accepts.
void expect_sane(const absl::StatusOr<ProcessTrace>& trace, size_t file_size) {
  if (!trace.ok()) {
    EXPECT_FALSE(trace.status().message().empty());
    return;
  }
  EXPECT_LE(trace->events.size() * sizeof(Event), file_size);
  EXPECT_EQ(trace->complete, trace->truncation.empty()) << trace->truncation;
  EXPECT_TRUE(std::is_sorted(trace->events.begin(), trace->events.end(),
                             [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; }));
  for (const auto& [id, pcs] : trace->stacks) EXPECT_LE(pcs.size(), kMaxStackDepth);
  for (const auto& [id, frames] : trace->python_stacks) EXPECT_LE(frames.size(), kMaxPythonDepth);
}

TEST(TraceDamage, RandomBytesNeverCrash) {
  std::string dir = temp_dir("random");
  std::filesystem::create_directories(dir);
  std::string path = dir + "/r.sstrace";
  std::mt19937 rng(20240601);
  int accepted = 0;
  for (int round = 0; round < 1500; ++round) {
    Payload bytes;
    if (round % 2 == 1) {  // a valid header, then noise: exercises the record walk
      FileHeader h = make_header(1);
      bytes.raw(&h, sizeof(h));
    }
    size_t noise = rng() % 600;
    for (size_t i = 0; i < noise; ++i) {
      // Small values are likelier to be plausible types and sizes.
      bytes.bytes.push_back(static_cast<unsigned char>(rng() % 3 == 0 ? rng() % 10 : rng()));
    }
    write_bytes(path, bytes.bytes);
    auto trace = read_trace_file(path);
    expect_sane(trace, bytes.bytes.size());
    if (round % 2 == 0) {
      EXPECT_FALSE(trace.ok()) << round;  // random bytes are never a trace header
    }
    if (trace.ok()) ++accepted;
  }
  EXPECT_GT(accepted, 0);
}

TEST(TraceDamage, RandomMutationsNeverCrash) {
  std::string dir = temp_dir("fuzz");
  std::string path = write_sample(dir);
  const std::vector<unsigned char> original = read_bytes(path);
  std::mt19937 rng(12345);
  std::string mutated = dir + "/m.sstrace";
  int readable = 0, damaged = 0;
  for (int round = 0; round < 4000; ++round) {
    std::vector<unsigned char> bytes = original;
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) {
      // Mostly past the header, where damage must be tolerated; sometimes in it.
      size_t at = rng() % 8 == 0 ? rng() % sizeof(FileHeader) : rng() % bytes.size();
      switch (rng() % 4) {
        case 0:
          bytes[at] = static_cast<unsigned char>(rng());
          break;
        case 1:
          bytes[at] ^= static_cast<unsigned char>(1u << (rng() % 8));
          break;
        case 2:
          bytes[at] = 0xFF;
          break;
        default:
          bytes[at] = static_cast<unsigned char>(rng() % 16);
          break;
      }
    }
    size_t size = rng() % 4 == 0 ? rng() % (bytes.size() + 1) : bytes.size();
    write_bytes(mutated, bytes, size);
    auto trace = read_trace_file(mutated);
    expect_sane(trace, size);
    if (trace.ok()) {
      ++readable;
      if (!trace->complete) ++damaged;
    }
  }
  EXPECT_GT(readable, 1000);
  EXPECT_GT(damaged, 100);
}

// A damaged run spanning the whole clock (its last launch at 2^64 - 1 ns):
// the reader spread its launches in doubles, where the span rounded up to
// 2^64 and the cast back to an integer was undefined (UBSan stopped the
// trace reader's fuzz target, tests/fuzz/corpus/trace_reader/
// run_spanning_2_64.sstrace). Now exact, in order, within the run.
TEST(TraceDamage, ARunSpanningTheWholeClockComesBackInOrder) {
  std::string dir = temp_dir("run-span");
  std::filesystem::create_directories(dir);
  std::vector<Event> shapes = {make_event(12, 0, 0), make_event(12, 0, 0), make_event(13, 0, 0)};
  for (Event& e : shapes) e = launch_shape(e);
  constexpr uint64_t kLast = ~uint64_t{0};
  const LaunchRun run{0, kLast, kLast, 30, 7, 4};
  RawTrace raw(make_header(1));
  raw.add(RecordType::kLaunchSequence, Payload().u32(4).u32(3).raw(shapes.data(), 3 * sizeof(Event)).bytes);
  raw.add(RecordType::kLaunchRuns, &run, sizeof(run));
  raw.add_end(3, 0);
  raw.save(dir + "/span.sstrace");
  auto trace = read_trace_file(dir + "/span.sstrace");
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->complete) << trace->truncation;
  ASSERT_EQ(trace->events.size(), 3u);
  EXPECT_EQ(trace->events[0].start_ns, 0u);
  EXPECT_EQ(trace->events[1].start_ns, kLast / 2);
  EXPECT_EQ(trace->events[2].start_ns, kLast);
  EXPECT_EQ(trace->events[2].end_ns, kLast);
  EXPECT_EQ(trace->aggregated_launches, 3u);
}

// The end record grew from 32 to 56 bytes without a version change: a
// 32-byte one reads as before (ring-full drops only), a 56-byte one adds
// its three counts to the total and keeps them apart.
TEST(TraceEndRecord, OldAndNewSizesBothRead) {
  std::string dir = temp_dir("end-sizes");
  std::filesystem::create_directories(dir);
  auto read_with_end = [&dir](const std::string& name, const std::vector<unsigned char>& end) {
    Event events[2] = {make_event(1, 10, 11), make_event(2, 20, 21)};
    RawTrace raw(make_header(1));
    raw.add_events(events, 2);
    raw.add(RecordType::kEnd, end);
    raw.save(dir + "/" + name);
    return read_trace_file(dir + "/" + name);
  };
  auto old_trace = read_with_end("old.sstrace", Payload().u64(1).u64(2).u64(7).u64(0).bytes);
  ASSERT_TRUE(old_trace.ok()) << old_trace.status();
  EXPECT_TRUE(old_trace->complete);
  EXPECT_EQ(old_trace->events_dropped, 7u);
  EXPECT_EQ(old_trace->events_unwritten_at_exit, 0u);
  auto new_trace = read_with_end("new.sstrace", Payload().u64(1).u64(2).u64(7).u64(0).u64(30).u64(4).u64(5).bytes);
  ASSERT_TRUE(new_trace.ok()) << new_trace.status();
  EXPECT_TRUE(new_trace->complete);
  EXPECT_EQ(new_trace->events_dropped, 46u);
  EXPECT_EQ(new_trace->events_unwritten_at_exit, 30u);
  EXPECT_EQ(new_trace->events_over_size_limit, 5u);
  EXPECT_EQ(new_trace->events_lost_no_memory, 4u);
}

// Aggregated launches from a damaged or hostile file: a sequence longer
// than any recorder writes, or a run naming a sequence the file does not
// hold, stops the read there (keeping what came before) instead of
// expanding into memory the file cannot justify.
TEST(TraceDamage, LaunchRunsBeyondTheirLimitsAreCorrupt) {
  std::string dir = temp_dir("runs");
  std::filesystem::create_directories(dir);
  Event before[1] = {make_event(1, 10, 11)};
  auto read_with = [&](const std::string& name, RecordType type, const std::vector<unsigned char>& payload) {
    RawTrace raw(make_header(1));
    raw.add_events(before, 1);
    raw.add(type, payload);
    raw.save(dir + "/" + name);
    return read_trace_file(dir + "/" + name);
  };
  Payload too_long;
  too_long.u32(0).u32(kMaxLaunchSequence + 1);
  for (uint32_t i = 0; i <= kMaxLaunchSequence; ++i) {
    for (int w = 0; w < 8; ++w) too_long.u64(0);
  }
  auto long_trace = read_with("long.sstrace", RecordType::kLaunchSequence, too_long.bytes);
  ASSERT_TRUE(long_trace.ok()) << long_trace.status();
  EXPECT_EQ(long_trace->events.size(), 1u);
  EXPECT_NE(long_trace->truncation.find("launch sequence of 4097 launches"), std::string::npos)
      << long_trace->truncation;

  auto orphan = read_with("orphan.sstrace", RecordType::kLaunchRuns,
                          Payload().u64(100).u64(200).u64(210).u64(50).u32(7).u32(3).bytes);
  ASSERT_TRUE(orphan.ok()) << orphan.status();
  EXPECT_EQ(orphan->events.size(), 1u);
  EXPECT_NE(orphan->truncation.find("launch run of unknown sequence 3"), std::string::npos) << orphan->truncation;
}

// The reader keeps events in start order as records come (merging each
// record's into the tail): the same order a stable sort of the whole file
// gives, equal starts in file order, for records that overlap a little (as
// drains do) and for records in reverse (hostile: one sort at the end).
TEST(TraceOrder, EventsComeBackInStableStartOrder) {
  std::string dir = temp_dir("order");
  std::filesystem::create_directories(dir);
  std::mt19937 rng(3);
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse);
    RawTrace raw(make_header(1));
    std::vector<Event> all;
    for (int record = 0; record < 200; ++record) {
      std::vector<Event> batch;
      const uint64_t base = reverse ? 1000000 - record * 1000 : record * 1000;
      for (int i = 0; i < 50; ++i) {
        // Overlapping the last records, with repeated starts (ties).
        Event e = make_event(static_cast<uint16_t>(1 + record % 7), base + rng() % 3000 / 10 * 10, 0);
        e.end_ns = e.start_ns + 5;
        e.tid = static_cast<uint32_t>(record * 100 + i);  // tells events apart
        batch.push_back(e);
      }
      raw.add_events(batch.data(), batch.size());
      all.insert(all.end(), batch.begin(), batch.end());
    }
    raw.save(dir + "/order.sstrace");
    auto trace = read_trace_file(dir + "/order.sstrace");
    ASSERT_TRUE(trace.ok()) << trace.status();
    std::stable_sort(all.begin(), all.end(), [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; });
    ASSERT_EQ(trace->events.size(), all.size());
    for (size_t i = 0; i < all.size(); ++i) ASSERT_TRUE(same_event(trace->events[i], all[i])) << i;
  }
}

}  // namespace
}  // namespace syncscope::testing
