// Joining the GPU timeline to the recorded calls (docs/gpu-timeline.md, "The
// join"): correlation id -> CUPTI API record -> the event on the same thread
// whose span contains it. Offline, in the reader: nothing in the target.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "trace/reader.h"

namespace syncscope {

// Slack allowed between an API record's span and the event that contains it
// (TSC conversion error, clock sampling).
inline constexpr uint64_t kGpuJoinSlackNs = 1000;

// Sorts trace.gpu_activity and trace.gpu_api by start and fills each
// activity's event_index and stream. Expects trace.events sorted by start.
// With no API records at all (CUPTI 13.0 gives none for calls enabled one by
// one; SYNCSCOPE_GPU_API_RECORDS=off asks for none), work joins its call by
// issue order (correlation ids count calls as they begin) and a sync record
// the sync call around it. Under a sampled timeline only calls that began
// inside a window are candidates: the others' work was never recorded.
// With API records, work whose own API record was lost (a launch under way
// when a window closed) joins the first free fitting call after the call of
// its nearest lower correlation id.
void join_gpu_activity(ProcessTrace& trace);

// Whether [start_ns, end_ns] lies inside one of the sorted sampling windows
// (trace.gpu_windows); always true when there are none (full timeline).
bool gpu_window_covers(const std::vector<std::pair<uint64_t, uint64_t>>& windows, uint64_t start_ns,
                       uint64_t end_ns);

// Whether an event of this API may have caused (or waited for) GPU work of
// this kind.
bool gpu_kind_fits_api(uint8_t gpu_kind, uint16_t api);

}  // namespace syncscope
