// The GPU timeline section of `syncscope dump` (docs/gpu-timeline.md): how
// many kernels, copies, memsets and syncs CUPTI reported, how many joined a
// recorded call (and which API), per stream; with --gpu, the records
// themselves. What tests/gpu/check_gpu_timeline.py checks the report against.
#pragma once

#include <cstdint>
#include <ostream>

#include <nlohmann/json.hpp>

#include "trace/reader.h"

namespace syncscope {

// base_ns: the time the dump's relative times count from.
nlohmann::json gpu_summary_json(const ProcessTrace& trace);
nlohmann::json gpu_records_json(const ProcessTrace& trace, uint64_t base_ns, size_t max_records);
// The sampled timeline's windows (trace.gpu_windows), times relative to base_ns.
nlohmann::json gpu_windows_json(const ProcessTrace& trace, uint64_t base_ns);
void gpu_summary_text(std::ostream& out, const ProcessTrace& trace);
void gpu_records_text(std::ostream& out, const ProcessTrace& trace, uint64_t base_ns, size_t max_records);

}  // namespace syncscope
