// Synthetic traces for the report tests.
#pragma once

#include <vector>

#include "analysis/trace_analysis.h"
#include "trace/api.h"
#include "trace/reader.h"

namespace syncscope::testing {

// Each trace analysed whole, as the analysis does a trace that short
// (analysis/trace_analysis.h); the report keeps pointers into the result.
inline std::vector<AnalysedTrace> analysed(const std::vector<ProcessTrace>& traces, const StepOptions& steps = {}) {
  std::vector<AnalysedTrace> out;
  for (const ProcessTrace& t : traces) out.push_back(analyze_read_trace(t, steps));
  return out;
}

inline Event event(ApiId api, uint64_t start, uint64_t duration, uint32_t stack = 0) {
  Event e{};
  e.api = static_cast<uint16_t>(api);
  e.start_ns = start;
  e.end_ns = start + duration;
  e.stack_id = stack;
  e.device = -1;
  return e;
}

// 3 launches, 2 stream syncs (stack 1, 100 µs each), 1 pageable H2D copy of 1 MiB (stack 2, 120 µs).
inline ProcessTrace sample_trace() {
  ProcessTrace t;
  t.header.pid = 321;
  t.complete = true;
  t.process_info = {{"argv", "./train --steps 2"}, {"cuda_runtime", "real"}};
  for (int i = 0; i < 3; ++i) t.events.push_back(event(ApiId::__cudaLaunchKernel, 1000 + i * 10, 5));
  t.events.push_back(event(ApiId::cudaStreamSynchronize, 2000, 100000, 1));
  t.events.push_back(event(ApiId::cudaStreamSynchronize, 200000, 100000, 1));
  Event copy = event(ApiId::cudaMemcpyAsync, 400000, 120000, 2);
  copy.bytes = 1 << 20;
  copy.direction = static_cast<uint8_t>(Direction::kHostToDevice);
  copy.host_mem = static_cast<uint8_t>(HostMem::kPageable);
  t.events.push_back(copy);
  t.stacks[1] = {0x10, 0x20};
  t.stacks[2] = {0x30};
  return t;
}

}  // namespace syncscope::testing
