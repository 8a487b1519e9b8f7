// CUPTI's activity records as the trace's GpuRecords (trace/gpu_record.h):
// kernels, copies, memsets, synchronisations and the runtime/driver API
// records they join through, their times on the trace's clock. Called on
// the thread that completes a buffer, under the pending list's mutex.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <unordered_set>

#include "preload/gpu_timeline/cupti_state.h"
#include "trace/gpu_record.h"

namespace syncscope::preload::cupti {

// Read by the buffer callbacks without a lock: set (activity_kinds.cpp)
// before kinds are enabled.
struct Filter {
  bool runtime = false, driver = false;  // whole kinds enabled: keep only these cbids
  std::unordered_set<uint32_t> runtime_keep, driver_keep;
};
extern Filter g_filter;

// One CUPTI record as a GpuRecord; false for kinds (or calls) not kept.
bool convert(const CUpti_Activity* activity, Pending& p, GpuRecord* out);

}  // namespace syncscope::preload::cupti
