#include "report/category_help.h"

namespace syncscope {

const CategoryHelp& category_help(Category c) {
  static const CategoryHelp kHiddenSync{
      "HiddenSync", "The host waits for the GPU inside the training step.",
      "A call blocked the host until queued GPU work finished: a read-back of a device value (.item(), "
      "print(tensor), if tensor:, .cpu(), nonzero, masked indexing), an explicit torch.cuda.synchronize(), or the "
      "device-wide synchronisation inside cudaFree. While the host waits it queues no further work, so the GPU "
      "idles once the wait ends.",
      "Keep values on the device inside the step; read them back every N steps, or copy them asynchronously into "
      "pinned memory and read them a step later. Time with CUDA events instead of synchronize()."};
  static const CategoryHelp kPageableCopy{
      "PageableCopy", "A host-device copy uses pageable (unpinned) host memory.",
      "Copies between the device and pageable host memory are staged through a driver buffer and block the host "
      "even when requested as asynchronous (non_blocking=True).",
      "Have the host side pinned off the training thread (DataLoader(pin_memory=True) with num_workers>=1, whose "
      "pin-memory thread pins each batch; a buffer made once with torch.empty(..., pin_memory=True)) and copy with "
      "non_blocking=True. Pinning on the training thread just before the copy (tensor.pin_memory(), "
      "pin_memory=True with num_workers=0) copies the data on the host as the staging did."};
  static const CategoryHelp kAllocatorChurn{
      "AllocatorChurn", "Device memory is allocated or freed in steady state.",
      "cudaMalloc/cudaFree (or the driver's cuMem* calls) inside the training loop: torch.cuda.empty_cache(), "
      "shapes that keep growing, or a caching allocator at its memory cap. cudaFree synchronises the whole "
      "device and both calls are slow.",
      "Do not call empty_cache() in the loop; pad or bucket variable shapes; leave headroom below the memory cap "
      "(or use expandable_segments)."};
  static const CategoryHelp kDefaultStream{
      "DefaultStream", "Work is serialised on one stream or on the legacy default stream.",
      "Copies queued on the compute stream wait behind the compute already queued there; work on the legacy "
      "default stream waits for, and blocks, every other blocking stream.",
      "Issue copies on a side stream (torch.cuda.Stream()) and order them with events (wait_stream/record_stream); "
      "avoid the legacy default stream (use per-thread default streams or explicit streams)."};
  switch (c) {
    case Category::kHiddenSync:
      return kHiddenSync;
    case Category::kPageableCopy:
      return kPageableCopy;
    case Category::kAllocatorChurn:
      return kAllocatorChurn;
    case Category::kDefaultStream:
      return kDefaultStream;
  }
  return kHiddenSync;
}

}  // namespace syncscope
