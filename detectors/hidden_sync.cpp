#include <string>
#include <unordered_map>

#include "detectors/api_sequence.h"
#include "detectors/detectors.h"
#include "detectors/site_aggregator.h"
#include "trace/api.h"

namespace syncscope {
namespace {

std::string hint(Cause cause) {
  switch (cause) {
    case Cause::kReadBack:
      return "a device value is read on the host (.item(), print(tensor), if tensor:, bool(), nonzero, masked "
             "indexing, .cpu()): keep it on the GPU and read it every N steps, or copy it non_blocking into pinned "
             "memory and read it a step later";
    case Cause::kExplicit:
      return "an explicit synchronize in the loop: remove it, or record a CUDA event and wait for that only where "
             "the result is needed (for timing, one pair of torch.cuda.Events around a block of steps)";
    case Cause::kCopyThenSync:
      return "a blocking copy to the device: the host waits until the copy and all work queued before it are done; "
             "from pinned memory pass non_blocking=True, from pageable memory pin it first";
    case Cause::kImplicitFree:
      return "cudaFree/cudaFreeHost synchronise the whole device: keep buffers alive (a caching allocator, no "
             "torch.cuda.empty_cache() in the loop)";
    case Cause::kSyncCopy:
      return "a synchronous cudaMemcpy waits for all queued work: use cudaMemcpyAsync on a stream with pinned "
             "memory";
    case Cause::kSyncMemset:
      return "cudaMemset is synchronous: use cudaMemsetAsync on the work's stream";
    default:
      return "";
  }
}

bool is_async_copy(const Event* e, Direction direction) {
  return e != nullptr && api_family(e->api) == ApiFamily::kCopy && e->direction == static_cast<uint8_t>(direction) &&
         (e->flags & kFlagAsync);
}

// "cudaMemcpyAsync(H2D)", with " pageable" inside the brackets when the host
// side is pageable: the report's operation (sites/sync_operation.h) reads it.
std::string copy_text(const Event& copy) {
  std::string text = with_direction(copy);
  if (copy.host_mem == static_cast<uint8_t>(HostMem::kPageable) && !text.empty() && text.back() == ')') {
    text.insert(text.size() - 1, " pageable");
  }
  return text;
}

}  // namespace

std::vector<Finding> detect_hidden_syncs(const std::vector<Event>& events, const Segmentation& segmentation) {
  SiteAggregator sites(Category::kHiddenSync, segmentation);
  // Per thread, the last non-launch call: a D2H copy right before a wait is a read-back.
  std::unordered_map<uint32_t, const Event*> previous;
  for (const Event& e : events) {
    ApiFamily family = api_family(e.api);
    if (family == ApiFamily::kLaunch || family == ApiFamily::kEventRecord || family == ApiFamily::kQuery ||
        family == ApiFamily::kMarker) {
      continue;
    }
    const Event* before = previous[e.tid];
    previous[e.tid] = &e;
    if (e.flags & (kFlagCapturing | kFlagError)) continue;  // captured work does not execute now
    const uint64_t ns = e.end_ns - e.start_ns;
    const std::string api(api_name(e.api));
    if (family == ApiFamily::kSync) {
      const bool waits_for_before =
          before != nullptr && (before->stream == e.stream || e.api == static_cast<uint16_t>(ApiId::cudaDeviceSynchronize) ||
                                e.api == static_cast<uint16_t>(ApiId::cuCtxSynchronize));
      if (waits_for_before && is_async_copy(before, Direction::kDeviceToHost)) {
        sites.add(e, api, with_direction(*before) + "+" + api, Cause::kReadBack,
                  ns + (before->end_ns - before->start_ns), before->bytes);
      } else if (waits_for_before && is_async_copy(before, Direction::kHostToDevice)) {
        // The copy's own time is the pageable-copy detector's when its host
        // memory is pageable; the wait is this finding's.
        sites.add(e, api, copy_text(*before) + "+" + api, Cause::kCopyThenSync, ns, before->bytes);
      } else {
        sites.add(e, api, api, Cause::kExplicit, ns, 0);
      }
    } else if ((family == ApiFamily::kFree && !(e.flags & kFlagAsync)) || family == ApiFamily::kHostFree) {
      sites.add(e, api, api, Cause::kImplicitFree, ns, 0);
    } else if (family == ApiFamily::kCopy && !(e.flags & kFlagAsync) &&
               e.direction != static_cast<uint8_t>(Direction::kHostToHost)) {
      sites.add(e, api, copy_text(e), Cause::kSyncCopy, ns, e.bytes);
    } else if (family == ApiFamily::kMemset && !(e.flags & kFlagAsync)) {
      sites.add(e, api, api, Cause::kSyncMemset, ns, e.bytes);
    }
  }
  return sites.finish(hint);
}

}  // namespace syncscope
