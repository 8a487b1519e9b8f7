// Recording the CUDA C++ examples against the fake runtime: the calls,
// bytes, streams and host-memory kinds in the trace are exactly what the
// examples did, and the stacks of their syncs name the examples' own
// functions.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "sites/symbolizer.h"
#include "tests/integration/harness.h"
#include "trace/process_info_keys.h"

namespace syncscope::testing {
namespace {

// Symbol names on the stack of an event (innermost first).
std::vector<std::string> stack_symbols(const ProcessTrace& trace, const Event& e) {
  std::vector<std::string> names;
  auto it = trace.stacks.find(e.stack_id);
  if (it == trace.stacks.end()) return names;
  Symbolizer symbolizer(trace);
  for (size_t i = 0; i < it->second.size(); ++i) names.push_back(symbolizer.symbolize(it->second[i], i == 0).symbol);
  return names;
}

bool stack_names(const ProcessTrace& trace, const Event& e, const std::string& function) {
  for (const std::string& name : stack_symbols(trace, e)) {
    if (name.find(function) != std::string::npos) return true;
  }
  return false;
}

TEST(Recording, HiddenSyncLoop) {
  ProcessTrace t = record_one("hidden_sync_loop", {"50"});
  auto syncs = events_of(t, ApiId::cudaStreamSynchronize);
  auto copies = events_of(t, ApiId::cudaMemcpyAsync);
  ASSERT_EQ(syncs.size(), 50u);
  ASSERT_EQ(copies.size(), 50u);
  for (const Event& c : copies) {
    EXPECT_EQ(c.direction, static_cast<uint8_t>(Direction::kDeviceToHost));
    EXPECT_EQ(c.host_mem, static_cast<uint8_t>(HostMem::kPinned));
    EXPECT_EQ(c.bytes, 4u);
    EXPECT_TRUE(c.flags & kFlagAsync);
  }
  // The sync waited for the queued spin kernels: it took real host time.
  uint64_t blocked = 0;
  for (const Event& s : syncs) {
    blocked += s.end_ns - s.start_ns;
    EXPECT_NE(s.stack_id, 0u);
    EXPECT_TRUE(stack_names(t, s, "read_loss_value")) << "sync stack does not name read_loss_value";
  }
  EXPECT_GT(blocked, 50u * 10000u);  // > 10 µs each on average
  // Launches are recorded without stacks, on the copy's stream.
  auto launches = events_of(t, ApiId::__cudaLaunchKernel);
  ASSERT_GE(launches.size(), 50u);
  for (const Event& l : launches) EXPECT_EQ(l.stack_id, 0u);
  EXPECT_EQ(launches.back().stream, copies.back().stream);
  // Every stack an event names is in the trace.
  for (const Event& e : t.events) {
    if (e.stack_id != 0) {
      EXPECT_TRUE(t.stacks.count(e.stack_id));
    }
  }
}

TEST(Recording, PageableCopyLoop) {
  ProcessTrace t = record_one("pageable_copy_loop", {"30"});
  auto copies = events_of(t, ApiId::cudaMemcpyAsync);
  ASSERT_EQ(copies.size(), 30u);
  uint64_t blocked = 0;
  for (const Event& c : copies) {
    EXPECT_EQ(c.direction, static_cast<uint8_t>(Direction::kHostToDevice));
    EXPECT_EQ(c.host_mem, static_cast<uint8_t>(HostMem::kPageable));
    EXPECT_EQ(c.bytes, 1u << 20);
    EXPECT_NE(c.stream, 0u);
    EXPECT_TRUE(stack_names(t, c, "upload_batch_pageable"));
    blocked += c.end_ns - c.start_ns;
  }
  // The fake stages pageable copies synchronously, ~100 µs per MiB.
  EXPECT_GT(blocked / copies.size(), 50000u);
}

TEST(Recording, AllocChurnLoop) {
  ProcessTrace t = record_one("alloc_churn_loop", {"40"});
  auto mallocs = events_of(t, ApiId::cudaMalloc);
  auto frees = events_of(t, ApiId::cudaFree);
  ASSERT_EQ(mallocs.size(), 40u);
  ASSERT_EQ(frees.size(), 40u);
  for (size_t i = 0; i < mallocs.size(); ++i) {
    EXPECT_EQ(mallocs[i].bytes, 4u << 20);
    EXPECT_NE(mallocs[i].dst, 0u);  // the allocated pointer was recorded
    EXPECT_TRUE(stack_names(t, frees[i], "step_with_fresh_buffer"));
  }
  // Frees release what was allocated.
  std::multiset<uint64_t> allocated, freed;
  for (const Event& e : mallocs) allocated.insert(e.dst);
  for (const Event& e : frees) freed.insert(e.dst);
  EXPECT_EQ(allocated, freed);
}

TEST(Recording, ForkedChildWritesItsOwnTrace) {
  std::string dir = fresh_dir("fork");
  RunResult r =
      run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", example("fork_child")}, fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 2u);
  EXPECT_NE(traces[0].header.pid, traces[1].header.pid);
  const ProcessTrace& child = traces[0].header.ppid == traces[1].header.pid ? traces[0] : traces[1];
  const ProcessTrace& parent = &child == &traces[0] ? traces[1] : traces[0];
  EXPECT_EQ(child.header.ppid, parent.header.pid);
  EXPECT_TRUE(child.complete) << child.truncation;
  EXPECT_TRUE(parent.complete) << parent.truncation;
  EXPECT_GT(count_api(child, ApiId::cudaMalloc), 0u);
  EXPECT_GT(count_api(child, ApiId::cudaStreamSynchronize) + count_api(child, ApiId::cudaDeviceSynchronize), 0u);
  // The child's trace holds only the child's own calls: none before its start.
  for (const Event& e : child.events) EXPECT_GE(e.start_ns, child.header.start_monotonic_ns);
}

TEST(Recording, NoStacksOption) {
  std::string dir = fresh_dir("nostacks");
  RunResult r = run(
      {syncscope_bin(), "run", "--no-report", "--no-stacks", "-o", dir + "/t", "--", example("hidden_sync_loop"), "5"},
      fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_TRUE(traces[0].stacks.empty());
  EXPECT_EQ(count_api(traces[0], ApiId::cudaStreamSynchronize), 5u);
  EXPECT_EQ(traces[0].info(info_key::kRecorderCaptures), "0") << "no stack, no capture";
}

// The wheel ships no libunwind (Debian's needs glibc 2.34): where none is
// installed, stacks come from glibc's backtrace() (libgcc's unwinder). Here
// the system's copy is hidden by a bind mount in a mount namespace of the
// run's own; the sync's stack must still name the example's function.
TEST(Recording, WithoutLibunwindStacksComeFromLibgcc) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path unwinder = fs::canonical("/lib/x86_64-linux-gnu/libunwind.so.8", error);
  if (error) GTEST_SKIP() << "no system libunwind to hide";
  if (geteuid() != 0) GTEST_SKIP() << "needs root for a mount namespace";
  std::string dir = fresh_dir("no-libunwind");
  RunResult r = run({"/usr/bin/unshare", "-m", "/bin/sh", "-c",
                     "mount --bind /dev/null " + unwinder.string() + " && exec \"$0\" \"$@\"", syncscope_bin(), "run",
                     "--no-report", "-o", dir + "/t", "--", example("hidden_sync_loop"), "5"},
                    fake_runtime_env());
  if (r.exit_code != 0 && (r.err.find("mount") != std::string::npos || r.err.find("unshare") != std::string::npos)) {
    GTEST_SKIP() << "no mount namespace here: " << r.err;
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(traces[0].info("unwinder"), "libgcc");
  auto syncs = events_of(traces[0], ApiId::cudaStreamSynchronize);
  ASSERT_EQ(syncs.size(), 5u);
  for (const Event& s : syncs) EXPECT_TRUE(stack_names(traces[0], s, "read_loss_value"));
}

// Issue 25: the trace says what recording cost the program beyond the
// hooks' fixed path: one capture per event with a stack (each sync and each
// read-back copy of hidden_sync_loop), their time, the collector's CPU time;
// `report --details` shows it.
TEST(Recording, TheTraceSaysWhatRecordingCost) {
  std::string dir = fresh_dir("recorder-cost");
  RunResult r =
      run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", example("hidden_sync_loop"), "30"},
          fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  const ProcessTrace& t = traces[0];
  uint64_t with_stack = 0;
  for (const Event& e : t.events) with_stack += e.stack_id != 0;
  EXPECT_GE(with_stack, 60u);
  EXPECT_EQ(std::stoull(t.info(info_key::kRecorderCaptures)), with_stack);
  const uint64_t capture_ns = std::stoull(t.info(info_key::kRecorderCaptureNs));
  EXPECT_GT(capture_ns, 0u);
  EXPECT_LT(capture_ns, 10'000'000'000ull) << "a 30-step run";
  EXPECT_GT(std::stoull(t.info(info_key::kRecorderCollectorCpuNs)), 0u);
  RunResult report = run({syncscope_bin(), "report", "--details", "--format", "json=" + dir + "/r.json", dir + "/t"});
  EXPECT_NE(report.out.find("recorder: " + std::to_string(with_stack) + " captures of stacks and Python frames"),
            std::string::npos)
      << report.out;
  const nlohmann::json doc = nlohmann::json::parse(slurp(dir + "/r.json"));
  const nlohmann::json& cost = doc["processes"][0]["recorder_cost"];
  EXPECT_EQ(cost["captures"].get<uint64_t>(), with_stack) << cost;
  EXPECT_EQ(cost["capture_ns"].get<uint64_t>(), capture_ns) << cost;
}

}  // namespace
}  // namespace syncscope::testing

namespace syncscope::testing {
namespace {

// api_tour calls every hooked entry point a documented number of times
// (tests/gpu/api_tour_expected.json); the trace must hold exactly those.
TEST(Recording, ApiTourSeesEveryHookExactly) {
  ProcessTrace t = record_one("api_tour", {});
  std::ifstream in(SYNCSCOPE_SOURCE_DIR "/tests/gpu/api_tour_expected.json");
  nlohmann::json expected = nlohmann::json::parse(in);
  size_t runtime_apis = 0;
  for (uint16_t id = 1; id < kApiCount; ++id) {
    runtime_apis += !api_is_driver(id) && api_family(id) != ApiFamily::kMarker;  // markers are not hooks
  }
  ASSERT_EQ(expected.size(), runtime_apis) << "every runtime API in the table has an expected count";
  for (uint16_t id = 1; id < kApiCount; ++id) {
    std::string name(api_name(id));
    if (api_family(id) == ApiFamily::kMarker) continue;
    if (api_is_driver(id)) {  // api_tour uses the runtime only (driver_tour covers the driver)
      EXPECT_EQ(count_api(t, static_cast<ApiId>(id)), 0u) << name;
      continue;
    }
    ASSERT_TRUE(expected.contains(name)) << name;
    EXPECT_EQ(count_api(t, static_cast<ApiId>(id)), expected[name].get<size_t>()) << name;
  }
  // Copy directions, host-memory kinds and bytes.
  auto copies = events_of(t, ApiId::cudaMemcpyAsync);
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].direction, static_cast<uint8_t>(Direction::kHostToDevice));
  EXPECT_EQ(copies[0].host_mem, static_cast<uint8_t>(HostMem::kPinned));
  EXPECT_EQ(copies[1].direction, static_cast<uint8_t>(Direction::kDeviceToHost));
  EXPECT_EQ(copies[1].host_mem, static_cast<uint8_t>(HostMem::kPageable));
  EXPECT_EQ(copies[0].stream, copies[1].stream);
  EXPECT_NE(copies[0].stream, 0u);
  auto sync_copy = events_of(t, ApiId::cudaMemcpy);
  EXPECT_EQ(sync_copy[0].host_mem, static_cast<uint8_t>(HostMem::kPageable));
  EXPECT_FALSE(sync_copy[0].flags & kFlagAsync);
  EXPECT_EQ(events_of(t, ApiId::cudaMemcpy2D)[0].bytes, 1024u);
  EXPECT_EQ(events_of(t, ApiId::cudaMemcpyToSymbol)[0].bytes, 64u);
  // Registered host memory counts as pinned from then on.
  EXPECT_EQ(events_of(t, ApiId::cudaHostRegister)[0].bytes, 4096u);
  // The launch inside graph capture is marked; the plain one is not.
  auto launches = events_of(t, ApiId::__cudaLaunchKernel);
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_FALSE(launches[0].flags & kFlagCapturing);
  EXPECT_TRUE(launches[1].flags & kFlagCapturing);
  auto ptsz = events_of(t, ApiId::cudaMemcpyAsync_ptsz);
  ASSERT_EQ(ptsz.size(), 1u);
  EXPECT_TRUE(ptsz[0].flags & kFlagPerThreadStream);
  EXPECT_EQ(ptsz[0].direction, static_cast<uint8_t>(Direction::kDeviceToDevice));
  // Created streams: the blocking one records flags 0, the others non-blocking.
  auto created = events_of(t, ApiId::cudaStreamCreateWithFlags);
  EXPECT_EQ(created[0].bytes, 1u);                   // cudaStreamNonBlocking
  EXPECT_EQ(created[0].stream, launches[1].stream);  // s2, where the graph was captured
  // The syncs' stacks name the function that made them.
  auto syncs = events_of(t, ApiId::cudaStreamSynchronize);
  EXPECT_TRUE(stack_names(t, syncs[0], "tour_synchronize_all"));
  EXPECT_TRUE(stack_names(t, events_of(t, ApiId::cudaDeviceSynchronize)[0], "tour_synchronize_all"));
}

}  // namespace
}  // namespace syncscope::testing
