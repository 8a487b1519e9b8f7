#include "preload/gpu_timeline/sampling.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "preload/core/clock.h"
#include "preload/core/config.h"
#include "preload/gpu_timeline/activity_kinds.h"
#include "preload/gpu_timeline/cupti_detach.h"
#include "trace/environment.h"
#include "trace/gpu_record.h"
#include "trace/process_info_keys.h"

namespace syncscope::preload::cupti {
namespace {

// The stretch at each end of a burst left out of the burst recorded: work
// queued before the kinds came on may still be running after, and work
// queued just before they go off may finish after (its record may be lost).
constexpr uint64_t kBurstMarginNs = 100000000ull;

// A burst begins now (the kinds already on): when it closes, when the next opens.
void begin_burst(Control& c) {
  c.burst_open_ns = monotonic_ns();
  c.burst_close_ns = c.burst_open_ns + c.burst_ns;
  c.next_open_ns += c.period_ns;
  while (c.next_open_ns <= c.burst_close_ns) c.next_open_ns += c.period_ns;  // late drains: skip, never overlap
}

void open_burst(Control& c) {
  if (!settle_detach(c)) return;  // the next drain tries again
  if (c.detached && !reattach(c)) return;
  set_recording(c, true);
  begin_burst(c);
}

}  // namespace

void close_burst(Control& c) {
  const uint64_t closed = monotonic_ns();
  set_recording(c, false);
  if (c.detach_between_bursts) {
    c.api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // nothing of this burst may be left in CUPTI
    ask_detach(c);
  }
  const uint64_t margin = std::min(kBurstMarginNs, c.burst_ns / 5);
  GpuRecord w{};
  w.kind = static_cast<uint8_t>(GpuKind::kWindow);
  w.device = -1;
  w.start_ns = c.burst_open_ns + margin;
  w.end_ns = closed > margin ? closed - margin : 0;
  if (w.end_ns <= w.start_ns) return;
  std::lock_guard<std::mutex> lock(g_pending->mutex);
  g_pending->records.push_back(w);
}

void advance_sampling(Control& c, uint64_t now) {
  if (c.period_ns == 0) return;
  if (c.recording && now >= c.burst_close_ns) {
    close_burst(c);
  } else if (!c.recording && now >= c.next_open_ns) {
    open_burst(c);
  }
}

void start_sampling(Control& c) {
  c.recording = true;
  c.period_ns = uint64_t{config().gpu_period_ms} * 1000000ull;
  c.burst_ns = uint64_t{config().gpu_burst_ms} * 1000000ull;
  if (c.period_ns == 0) {
    note(info_key::kGpuTimelineSampling, "full");
    return;
  }
  note(info_key::kGpuTimelineSampling,
       std::to_string(config().gpu_burst_ms) + "/" + std::to_string(config().gpu_period_ms));
  const char* detach = std::getenv(env::kGpuTimelineDetach);
  const bool session = !config().gpu_detach_between_bursts;
  c.detach_between_bursts = c.api.finalize != nullptr && c.api.enable_domain != nullptr && !session &&
                             !(detach != nullptr && std::strcmp(detach, "0") == 0);
  note(info_key::kGpuTimelineBetweenWindows, c.detach_between_bursts ? "detached (cuptiFinalize)"
                                             : session              ? "attached, kinds off (an attach session)"
                                                                    : "attached, kinds off");
  const uint64_t now = monotonic_ns();
  const uint64_t delay = uint64_t{config().gpu_first_burst_delay_ms} * 1000000ull;
  c.next_open_ns = now + std::min(delay, c.period_ns - c.burst_ns);
  if (c.next_open_ns == now) {
    begin_burst(c);  // the first burst is this one: the kinds stay on
  } else {
    set_recording(c, false);
    ask_detach(c);
  }
}

}  // namespace syncscope::preload::cupti
