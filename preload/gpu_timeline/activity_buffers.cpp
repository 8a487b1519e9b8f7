#include "preload/gpu_timeline/activity_buffers.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "preload/core/log.h"
#include "preload/gpu_timeline/cupti_records.h"
#include "preload/gpu_timeline/cupti_state.h"

namespace syncscope::preload::cupti {
namespace {

constexpr size_t kBufferBytes = 4u << 20;
constexpr size_t kMaxPendingRecords = 4u << 20;  // beyond: counted, not kept

// The epoch whose attach a record follows: nearly always the last or the
// one before, so searched from the end. Work is placed by its start. A
// call's API record is placed by its end, which CUPTI writes at the call's
// exit: a call's first records come just after the kinds go on, a little
// after the epoch's start, and a CUPTI clock read a little early (the
// calibration's error) could put the call's start before it while its
// kernel, later, lands after; split so, the two take different bases and
// the kernel joins no call. Its end lies further past the attach.
Pending::Epoch& epoch_of(Pending& p, const GpuRecord& r) {
  const uint64_t at_ns = gpu_kind_is_api(r.kind) ? r.end_ns : r.start_ns;
  for (size_t i = p.epochs.size(); i-- > 1;) {
    if (at_ns >= p.epochs[i].since_ns) return p.epochs[i];
  }
  return p.epochs.front();
}

// An epoch's lowest id (in the first buffer that holds any of its records)
// lands well past the last id recorded; the gap leaves room for lower ids
// of the same epoch in later buffers (other streams, other threads).
constexpr uint32_t kCorrelationGap = 1u << 16;

void set_epoch_bases(const CuptiApi& api, uint8_t* buffer, size_t valid, Pending& p) {
  if (p.epochs.back().base_set) return;
  struct Span {
    uint32_t lowest = 0, highest = 0;
  };
  std::vector<Span> spans(p.epochs.size());
  CUpti_Activity* activity = nullptr;
  while (api.next_record(buffer, valid, &activity) == CUPTI_SUCCESS) {
    GpuRecord r;
    if (!convert(activity, p, &r) || r.correlation_id == 0) continue;
    Span& span = spans[static_cast<size_t>(&epoch_of(p, r) - p.epochs.data())];
    if (span.lowest == 0 || r.correlation_id < span.lowest) span.lowest = r.correlation_id;
    span.highest = std::max(span.highest, r.correlation_id);
  }
  // In epoch order, each past the ids of the ones before it (in this
  // buffer too: one buffer may hold several attaches' records).
  uint32_t past = p.max_correlation;
  for (size_t e = 0; e < p.epochs.size(); ++e) {
    Pending::Epoch& epoch = p.epochs[e];
    if (spans[e].lowest == 0) continue;
    if (!epoch.base_set) {
      // Unsigned arithmetic: the base "wraps" where CUPTI's ids did not restart.
      epoch.base = past + kCorrelationGap - spans[e].lowest;
      epoch.base_set = true;
      log_debug("GPU timeline: attach %zu: CUPTI's correlation id %u becomes %u", e, spans[e].lowest,
                spans[e].lowest + epoch.base);
    }
    past = std::max(past, spans[e].highest + epoch.base);
  }
}

}  // namespace

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  const CuptiApi& api = g_control->api;  // set before callbacks were registered, never changed after
  if (buffer == nullptr) return;
  if (valid > 0 && api.next_record != nullptr && !g_forked_child) {  // a child's records are not its own
    std::lock_guard<std::mutex> lock(g_pending->mutex);
    Pending& p = *g_pending;
    set_epoch_bases(api, buffer, valid, p);
    CUpti_Activity* activity = nullptr;
    while (api.next_record(buffer, valid, &activity) == CUPTI_SUCCESS) {
      GpuRecord r;
      if (!convert(activity, p, &r)) continue;
      if (r.correlation_id != 0) {
        r.correlation_id += epoch_of(p, r).base;
        p.max_correlation = std::max(p.max_correlation, r.correlation_id);
      }
      if (p.records.size() >= kMaxPendingRecords) {
        ++p.dropped_here;
        continue;
      }
      p.records.push_back(r);
    }
    size_t dropped = 0;
    if (api.dropped_records != nullptr && api.dropped_records(context, stream_id, &dropped) == CUPTI_SUCCESS) {
      p.dropped_cupti += dropped;
    }
  }
  std::free(buffer);
}

}  // namespace syncscope::preload::cupti
