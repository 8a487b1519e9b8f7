// CUPTI's timestamps on the trace's clock (CLOCK_MONOTONIC). Either CUPTI
// reads our clock (cuptiActivityRegisterTimestampCallback, when the settings
// ask for it and CUPTI accepts), or each record is moved by the offset
// between the two clocks, measured at start, at each attach and at each
// periodic flush.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>

#include "preload/gpu_timeline/cupti_api.h"

namespace syncscope::preload::cupti {

// True when CUPTI reads our clock (its timestamps need no offset).
extern std::atomic<bool> g_timestamp_callback;

// The timestamp callback handed to CUPTI: our clock.
uint64_t CUPTIAPI trace_clock_now();
// CUPTI's clock minus ours: the tightest of a few bracketed samples.
void calibrate_offset(const CuptiApi& api);
// A CUPTI timestamp on the trace's clock (0 stays 0: no time).
uint64_t to_trace_clock(uint64_t cupti_ns);

}  // namespace syncscope::preload::cupti
