#include <unordered_map>

#include "detectors/detectors.h"
#include "detectors/site_aggregator.h"
#include "trace/api.h"

namespace syncscope {
namespace {

bool is_allocation_call(ApiFamily f) {
  return f == ApiFamily::kAlloc || f == ApiFamily::kFree || f == ApiFamily::kHostAlloc || f == ApiFamily::kHostFree ||
         f == ApiFamily::kVmmMap || f == ApiFamily::kVmmUnmap;
}

bool is_release(ApiFamily f) { return f == ApiFamily::kFree || f == ApiFamily::kVmmUnmap; }
bool is_vmm(ApiFamily f) { return f == ApiFamily::kVmmMap || f == ApiFamily::kVmmUnmap; }
bool is_pinned_host(ApiFamily f) { return f == ApiFamily::kHostAlloc || f == ApiFamily::kHostFree; }

}  // namespace

// Stream-ordered allocations (cudaMallocAsync/cudaFreeAsync) are how a
// memory-pool allocator is meant to work: not churn (docs/findings-schema.md).
std::vector<Finding> detect_allocator_churn(const std::vector<Event>& events, const Segmentation& segmentation) {
  SiteAggregator sites(Category::kAllocatorChurn, segmentation);
  // Cause hints from each thread's recent history.
  struct History {
    uint64_t last_alloc_bytes = 0;
    int growing_run = 0;
    std::vector<uint64_t> recent_free_times;
  };
  std::unordered_map<uint64_t, History> by_site;    // (tid, stack) for sizes
  std::unordered_map<uint32_t, History> by_thread;  // free bursts
  for (const Event& e : events) {
    ApiFamily family = api_family(e.api);
    if (!is_allocation_call(family) || (e.flags & (kFlagCapturing | kFlagError))) continue;
    if (e.flags & kFlagAsync) continue;
    std::string api(api_name(e.api));
    // Driver virtual memory (PyTorch's expandable_segments) maps and unmaps
    // physical pages instead of allocating: the same churn, another cure.
    Cause cause = is_vmm(family) ? Cause::kVmm : Cause::kChurn;
    if (is_pinned_host(family)) {
      // Pinned host memory has its own caching allocator in PyTorch, which
      // empty_cache() does not touch and expandable segments do not serve:
      // the device allocator's hints would name the wrong cure.
      cause = Cause::kPinnedHost;
    } else if (is_release(family)) {
      auto& frees = by_thread[e.tid].recent_free_times;
      frees.push_back(e.start_ns);
      while (!frees.empty() && e.start_ns - frees.front() > 5000000) frees.erase(frees.begin());
      if (frees.size() >= 4) cause = Cause::kFreeBurst;  // empty_cache() releases many blocks at once
    } else {
      by_thread[e.tid].recent_free_times.clear();
      History& h = by_site[(uint64_t{e.tid} << 32) | e.stack_id];
      h.growing_run = e.bytes > h.last_alloc_bytes && h.last_alloc_bytes != 0 ? h.growing_run + 1 : 0;
      h.last_alloc_bytes = e.bytes;
      if (h.growing_run >= 2 && !is_vmm(family)) cause = Cause::kGrowing;
    }
    sites.add(e, api, api, cause, e.end_ns - e.start_ns, e.bytes);
  }
  return sites.finish([](Cause cause) {
    switch (cause) {
      case Cause::kFreeBurst:
        return std::string(
            "bursts of frees: torch.cuda.empty_cache() (or gc of a large model) in the loop returns "
            "memory the next step allocates again; remove it");
      case Cause::kGrowing:
        return std::string(
            "allocation sizes keep growing (variable shapes): pad or bucket shapes, or set "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
      case Cause::kPinnedHost:
        return std::string(
            "pinned host memory allocated or freed in steady state (cudaHostAlloc, cudaFreeHost): "
            "PyTorch's pinned-memory allocator keeps its blocks by size, so something pins new "
            "memory every step (.pin_memory() in the loop, batches of changing sizes under "
            "DataLoader(pin_memory=True)): pin one buffer outside the loop and copy into it, or "
            "keep batch shapes fixed");
      case Cause::kVmm:
        return std::string(
            "expandable segments map and unmap device memory in steady state (cuMemMap/cuMemUnmap, "
            "cuMemCreate/cuMemRelease): remove torch.cuda.empty_cache() from the loop and keep peak "
            "memory below the limit so segments stay mapped");
      default:
        return std::string(
            "device allocations in steady state: reuse buffers (allocate once outside the loop); "
            "under PyTorch this means the caching allocator is at its limit — lower peak memory or "
            "use expandable_segments");
    }
  });
}

}  // namespace syncscope
