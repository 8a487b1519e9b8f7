// The synthetic two-rank job every report format is checked on
// (formats_test.cpp, pictures_test.cpp): 20 steps of a launch and an .item()
// read-back at train.py:6; rank 1 also syncs explicitly at train.py:7
// (suppressed by the policy) and twice more at a native site. With a GPU
// timeline, each launch's kernel and each copy ran on the GPU.
#pragma once

#include <string>

#include "report/report_model.h"
#include "tests/unit/report/report_test_util.h"

namespace syncscope::testing {

inline const std::string kGolden = std::string(SYNCSCOPE_SOURCE_DIR) + "/tests/unit/report/golden";

inline ProcessTrace rank_trace(int rank) {
  ProcessTrace t;
  t.header.pid = 1000 + rank;
  t.header.ppid = 999;
  t.complete = true;
  t.file = "/traces/" + std::to_string(1000 + rank) + "-0.sstrace";
  t.process_info = {
      {"argv", "python3 train.py"},         {"cuda_runtime", "real"}, {"cwd", kGolden}, {"RANK", std::to_string(rank)},
      {"LOCAL_RANK", std::to_string(rank)}, {"WORLD_SIZE", "2"}};
  t.python_code[1] = {"train.py", "step", 4};
  t.python_stacks[1] = {{1, 6}};
  t.python_stacks[2] = {{1, 7}};
  t.stacks[1] = {0x10};
  t.stacks[2] = {0x20};
  t.stacks[3] = {0x30};
  uint64_t now = 1000000;
  for (int step = 0; step < 20; ++step) {
    Event launch = event(ApiId::__cudaLaunchKernel, now, 3000);
    launch.dst = 0xabc;
    t.events.push_back(launch);
    Event copy = event(ApiId::cudaMemcpyAsync, now + 4000, 2000, 1);
    copy.direction = static_cast<uint8_t>(Direction::kDeviceToHost);
    copy.host_mem = static_cast<uint8_t>(HostMem::kPinned);
    copy.bytes = 4;
    copy.flags |= kFlagAsync;
    t.events.push_back(copy);
    t.events.push_back(event(ApiId::cudaStreamSynchronize, now + 7000, 40000, 1));
    if (rank == 1) {
      t.events.push_back(event(ApiId::cudaDeviceSynchronize, now + 50000, 30000, 2));
      t.events.push_back(event(ApiId::cudaStreamSynchronize, now + 90000, 20000, 3));
      t.events.push_back(event(ApiId::cudaStreamSynchronize, now + 120000, 20000, 3));
    }
    now += 200000;
  }
  return t;
}

// The kernel's name as CUPTI would give it, with what a JSON or HTML writer
// must escape: quotes, a backslash, markup, and bytes that are not UTF-8.
inline const std::string kOddKernelName = "_Z4spinPf<\"quoted\\\" & <b>bold</b> \xff\xfe>";

// rank_trace with a GPU timeline: each launch's kernel ran for 20 µs on
// CUPTI stream 7, each read-back copy for 2 µs on stream 8, joined to
// their calls.
inline ProcessTrace rank_trace_with_gpu(int rank) {
  ProcessTrace t = rank_trace(rank);
  t.process_info.emplace_back("gpu_timeline", "on");
  t.strings[1] = kOddKernelName;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    GpuActivity a;
    static_cast<GpuRecord&>(a) = GpuRecord{};
    a.event_index = static_cast<int64_t>(i);
    a.device = 0;
    a.correlation_id = static_cast<uint32_t>(i + 1);
    if (e.api == static_cast<uint16_t>(ApiId::__cudaLaunchKernel)) {
      a.kind = static_cast<uint8_t>(GpuKind::kKernel);
      a.name_id = 1;
      a.stream_id = 7;
      a.stream = 0x5000;
      a.start_ns = e.start_ns + 1000;
      a.end_ns = a.start_ns + 20000;
    } else if (e.api == static_cast<uint16_t>(ApiId::cudaMemcpyAsync)) {
      a.kind = static_cast<uint8_t>(GpuKind::kMemcpy);
      a.copy_kind = static_cast<uint8_t>(GpuCopyKind::kDtoH);
      a.src_kind = static_cast<uint8_t>(GpuMemoryKind::kDevice);
      a.dst_kind = static_cast<uint8_t>(GpuMemoryKind::kPinned);
      a.bytes = e.bytes;
      a.stream_id = 8;
      a.start_ns = e.start_ns + 22000;
      a.end_ns = a.start_ns + 2000;
      a.flags = kGpuFlagAsync;
    } else {
      continue;
    }
    t.gpu_activity.push_back(a);
  }
  return t;
}

inline ReportOptions two_rank_policy() {
  ReportOptions options;
  options.policy.gate.budgets = {{Category::kHiddenSync, 1, true}};
  options.policy.suppressions = *parse_suppressions("hidden-sync:train.py:7\n", "rules");
  // A baseline that knows the .item() line.
  options.policy.baseline =
      Baseline{"base.json", {make_identity("hidden-sync", "train.py", 6, "step", "value = loss.item()")}};
  return options;
}

}  // namespace syncscope::testing
