#include "sites/sync_operation.h"

#include <string_view>

namespace syncscope {
namespace {

// A demangled symbol without its parameters: "at::native::nonzero_cuda".
std::string_view qualified_name(const std::string& symbol) {
  std::string_view s(symbol);
  const size_t paren = s.find('(');
  return paren == std::string_view::npos ? s : s.substr(0, paren);
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// What the native frames say, outermost operation first in precedence:
// `if t:` runs is_nonzero, which runs item, which runs _local_scalar_dense.
struct NativeEvidence {
  bool is_nonzero = false, nonzero = false, scalar = false, copy = false, synchronize = false, allocator = false,
       list_index = false, autotune = false;
};

NativeEvidence read_native(const SiteFrames& site) {
  NativeEvidence e;
  bool run_single_conv = false, empty_cache = false;
  for (const Frame& f : site.native) {
    const std::string_view name = qualified_name(f.symbol);
    if (contains(name, "is_nonzero")) e.is_nonzero = true;
    // nonzero_cuda, nonzero_out, nonzero_static is not a sync; masked_select and
    // boolean indexing (index, index_put_) reach nonzero.
    if ((contains(name, "nonzero") && !contains(name, "is_nonzero") && !contains(name, "nonzero_static")) ||
        contains(name, "masked_select")) {
      e.nonzero = true;
    }
    if (contains(name, "_local_scalar_dense") || contains(name, "at::native::item")) e.scalar = true;
    if (contains(name, "copy_") || contains(name, "_to_copy") || contains(name, "copy_kernel")) e.copy = true;
    if (contains(name, "device_synchronize") || contains(name, "::synchronize") || contains(name, "cudaSynchronize")) {
      e.synchronize = true;
    }
    if (contains(name, "CUDACachingAllocator")) e.allocator = true;
    // torch::utils::indexing_tensor_from_data: a Python list used as an index.
    if (contains(name, "indexing_tensor_from_data")) e.list_index = true;
    // cudnn.benchmark: cuDNN times the candidate plans of a new shape
    // (time_sorted_plan), and first empties the cache for their workspace.
    if (contains(name, "time_sorted_plan")) e.autotune = true;
    if (contains(name, "run_single_conv")) run_single_conv = true;
    if (contains(name, "emptyCache")) empty_cache = true;
  }
  if (run_single_conv && empty_cache) e.autotune = true;
  return e;
}

// Whether one of the site's Python frames (the waiter's, when its own
// thread has none) satisfies `is`.
template <typename Predicate>
bool any_python_frame(const SiteFrames& site, Predicate is) {
  const std::vector<PythonSiteFrame>& frames = site.python.empty() ? site.waiter_python : site.python;
  for (const PythonSiteFrame& f : frames) {
    if (is(f)) return true;
  }
  return false;
}

// PyTorch's own Python that names the operation (torch.cuda.synchronize(),
// Stream.synchronize(), Event.synchronize()).
bool python_synchronize(const SiteFrames& site) {
  return any_python_frame(site, [](const PythonSiteFrame& f) {
    return (f.function == "synchronize" || f.function == "wait") && contains(f.file, "/torch/cuda/");
  });
}

// PyTorch's tensor formatter (print(t), str(t), repr(t), logging a tensor):
// its read-backs (masked_select's nonzero, comparisons as bools, .item())
// are one operation, the formatting, whatever each frame below says.
bool python_formats_tensor(const SiteFrames& site) {
  return any_python_frame(site, [](const PythonSiteFrame& f) { return contains(f.file, "/torch/_tensor_str.py"); });
}

bool is_sync_api(const std::string& api) { return contains(api, "Synchronize"); }

Operation copy_operation(const Finding& f) {
  const std::string& seq = f.api_sequence;
  if (contains(seq, "(D2H")) return Operation::kCopyToHost;
  if (contains(seq, "(H2D")) {
    const bool pageable = f.category == Category::kPageableCopy || contains(seq, "pageable");
    return pageable ? Operation::kCopyToDevicePageable : Operation::kCopyToDevicePinned;
  }
  return Operation::kUnknown;
}

}  // namespace

const char* operation_name(Operation op) {
  switch (op) {
    case Operation::kUnknown:
      return "unknown";
    case Operation::kItem:
      return "item";
    case Operation::kBool:
      return "bool";
    case Operation::kNonzero:
      return "nonzero";
    case Operation::kCopyToDevicePinned:
      return "copy-to-device-pinned";
    case Operation::kCopyToDevicePageable:
      return "copy-to-device-pageable";
    case Operation::kListIndex:
      return "list-index";
    case Operation::kCopyToHost:
      return "copy-to-host";
    case Operation::kSynchronize:
      return "synchronize";
    case Operation::kFree:
      return "free";
    case Operation::kAllocator:
      return "allocator";
    case Operation::kAutotune:
      return "cudnn-benchmark";
    case Operation::kFormat:
      return "format";
  }
  return "unknown";
}

const char* operation_label(Operation op) {
  switch (op) {
    case Operation::kUnknown:
      return "";
    case Operation::kItem:
      return ".item()";
    case Operation::kBool:
      return "tensor as a Python bool";
    case Operation::kNonzero:
      return "nonzero / boolean mask";
    case Operation::kCopyToDevicePinned:
      return "blocking .to(device) of pinned memory";
    case Operation::kCopyToDevicePageable:
      return "copy to the device from pageable memory";
    case Operation::kListIndex:
      return "a Python list as an index";
    case Operation::kCopyToHost:
      return "copy to the host";
    case Operation::kSynchronize:
      return "explicit synchronize";
    case Operation::kFree:
      return "cudaFree's device-wide sync";
    case Operation::kAllocator:
      return "allocator";
    case Operation::kAutotune:
      return "cuDNN's algorithm search";
    case Operation::kFormat:
      return "printing a CUDA tensor";
  }
  return "";
}

Operation classify_operation(const Finding& f, const SiteFrames& site) {
  if (f.category == Category::kDefaultStream) return Operation::kUnknown;
  const NativeEvidence e = read_native(site);
  if (e.autotune) return Operation::kAutotune;  // its syncs, frees and allocations alike
  if (f.category == Category::kAllocatorChurn) return Operation::kAllocator;
  // Before the copy it makes: the index's copy to the device is the cost.
  if (e.list_index) return Operation::kListIndex;
  if (f.category == Category::kPageableCopy) return copy_operation(f);
  if (f.cause == Cause::kImplicitFree) return Operation::kFree;
  if (python_formats_tensor(site)) return Operation::kFormat;  // its nonzero, bools and .item() alike
  if (e.is_nonzero) return Operation::kBool;
  if (e.nonzero) return Operation::kNonzero;
  if (e.scalar) return Operation::kItem;
  if (e.copy || f.cause == Cause::kCopyThenSync || f.cause == Cause::kSyncCopy) {
    const Operation copy = copy_operation(f);
    // A read-back through copy_ is .cpu()/.tolist(); without frames the
    // read-back stays unknown (it may be .item() in a stripped build).
    if (copy != Operation::kUnknown && (e.copy || f.cause != Cause::kReadBack)) return copy;
  }
  if (e.allocator) return Operation::kAllocator;
  if (is_sync_api(f.api)) {
    if (e.synchronize || python_synchronize(site)) return Operation::kSynchronize;
    // A native program's own call: the first frame past the recorder is the
    // caller's. A read-back there is reading a value (the cause's hint says so).
    if (f.cause == Cause::kExplicit && site.python.empty() && site.waiter_python.empty() &&
        site.user_native_index == 0) {
      return Operation::kSynchronize;
    }
  }
  return Operation::kUnknown;
}

std::string operation_hint(Operation op, bool in_backward) {
  if (in_backward && op == Operation::kNonzero) {
    return "autograd's backward of boolean-mask indexing (x[mask] in the forward pass) runs nonzero again, so "
           "backward() waits for the GPU: in the forward select without a boolean index (multiply by the mask, "
           "torch.where; for a loss, weight it by the mask or use the loss's ignore_index) or with "
           "nonzero_static(size=...)";
  }
  if (in_backward && op != Operation::kUnknown && op != Operation::kFree && op != Operation::kAllocator) {
    return "the backward of an operation in the forward pass reads a value on the host (its ...Backward node "
           "is in the native frames), so backward() waits for the GPU: change that operation in the forward "
           "(for an embedding, its backward counts indices; for boolean indexing, use a mask instead)";
  }
  switch (op) {
    case Operation::kItem:
      return ".item() (or float()/int() of a tensor, a tensor in an f-string) copies one value to the host and "
             "waits for all work queued before it: read it every N steps, keep the value on the GPU (accumulate "
             "with += loss.detach()), or copy it non_blocking=True into pinned memory and read it a step later";
    case Operation::kBool:
      return "a GPU tensor used as a Python bool (if t:, `a or b`, assert t) is read on the host, which waits "
             "for the GPU: compute the decision on the GPU (torch.where, a mask) or check it every N steps";
    case Operation::kNonzero:
      return "nonzero, boolean-mask indexing (x[mask]) and masked assignment (x[mask] = v) must know how many "
             "elements are selected, so the host waits for the GPU: for assignment use torch.where(mask, v, x) "
             "or x.masked_fill_(mask, v); for sums multiply by the mask; for a loss over the selected elements "
             "weight it by the mask or use the loss's ignore_index; with a known bound use "
             "nonzero_static(size=...)";
    case Operation::kCopyToDevicePinned:
      return "a blocking .to(device) of pinned memory waits until the copy and all work queued before it are "
             "done: pass non_blocking=True (the memory is already pinned)";
    case Operation::kCopyToDevicePageable:
      return "the host memory is pageable, so the copy blocks the host even when asked to be asynchronous: "
             "have the data pinned off the training thread (DataLoader(pin_memory=True) with num_workers>=1, "
             "whose pin-memory thread pins each batch; data made once, pinned once before the loop) and copy "
             "with non_blocking=True. Pinning on the training thread (tensor.pin_memory() before the copy, "
             "pin_memory=True with num_workers=0) copies the data on the host as the staging did: on an H100 "
             "it measured slower than the pageable copy";
    case Operation::kListIndex:
      return "an index given as a Python list (x[:, [-1]], x[[0, 2]]) is made into a tensor on the host and "
             "copied to the device from pageable memory, which waits for the GPU: use a slice (x[:, -1:]) or an "
             "index tensor made once on the device";
    case Operation::kCopyToHost:
      return "a copy to the host (.cpu(), .numpy(), .tolist(), torch.save of CUDA tensors) waits for the GPU: "
             "do it every N steps, or copy non_blocking=True into pinned memory and read it after a CUDA event";
    case Operation::kSynchronize:
      return "an explicit synchronize (torch.cuda.synchronize(), stream or event synchronize) in the loop: "
             "remove it, or record a torch.cuda.Event and wait for it only where the result is needed; to time "
             "steps, time a block of them with one pair of events read after it (an event recorded each step "
             "costs a record call a step, and each is created at its first record())";
    case Operation::kFormat:
      return "printing or formatting a CUDA tensor (print(t), str(t), logging it) runs a dozen kernels and reads "
             "the tensor back several times, each a wait for the GPU: print it every N steps, or print a number "
             "read with .item() every N steps";
    case Operation::kAutotune:
      return "torch.backends.cudnn.benchmark times cuDNN's algorithms for each new input shape, once: warm-up, "
             "unless shapes keep changing (pad or bucket variable sizes, or turn benchmark off)";
    case Operation::kFree:
    case Operation::kAllocator:
    case Operation::kUnknown:
      return "";  // the detector's hint for the cause says it (empty_cache, growing shapes, ...)
  }
  return "";
}

}  // namespace syncscope
