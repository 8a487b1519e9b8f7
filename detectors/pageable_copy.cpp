#include "detectors/api_sequence.h"
#include "detectors/detectors.h"
#include "detectors/site_aggregator.h"
#include "trace/api.h"

namespace syncscope {

std::vector<Finding> detect_pageable_copies(const std::vector<Event>& events, const Segmentation& segmentation) {
  SiteAggregator sites(Category::kPageableCopy, segmentation);
  for (const Event& e : events) {
    if (api_family(e.api) != ApiFamily::kCopy || e.host_mem != static_cast<uint8_t>(HostMem::kPageable)) continue;
    if (e.flags & (kFlagCapturing | kFlagError)) continue;
    std::string api(api_name(e.api));
    // Asked to be asynchronous, yet the host waited: the worst kind.
    Cause cause = (e.flags & kFlagAsync) ? Cause::kAsyncRequested : Cause::kSynchronous;
    sites.add(e, api, with_direction(e), cause, e.end_ns - e.start_ns, e.bytes);
  }
  return sites.finish([](Cause cause) {
    return std::string(cause == Cause::kAsyncRequested
                           ? "the copy was asked to be asynchronous but its host memory is pageable, so the host "
                             "blocked: have it pinned off the training thread (DataLoader(pin_memory=True) with "
                             "num_workers>=1; data made once, pinned once) and copy with non_blocking=True"
                           : "pageable host memory makes the runtime stage the copy: pin the host buffer and use "
                             "an asynchronous copy");
  });
}

}  // namespace syncscope
