// Which operation made a finding's CUDA call: `.item()`, `if tensor:`,
// boolean-mask indexing, a blocking `.to()`, ... — read from the symbolised
// native stack (PyTorch's operators are named there: _local_scalar_dense,
// is_nonzero, nonzero, copy_), then from PyTorch's Python frames, and only
// when neither says from the API sequence (the finding's cause). Each
// operation has its own hint. docs/findings-schema.md, "Operations", is the
// table of how each is recognised.
#pragma once

#include <string>

#include "detectors/finding.h"
#include "sites/site_frames.h"

namespace syncscope {

enum class Operation {
  kUnknown,
  kItem,                   // .item(), float(t), int(t): at::_local_scalar_dense
  kBool,                   // if t:, bool(t), `a or b` on tensors: at::is_nonzero
  kNonzero,                // nonzero, x[mask], x[mask] = v, masked_select: the result's size is read
  kCopyToDevicePinned,     // a blocking .to(device) of pinned memory
  kCopyToDevicePageable,   // a copy to the device from pageable memory
  kListIndex,              // x[:, [-1]]: an index given as a Python list is built on the host and copied
  kCopyToHost,             // .cpu(), .numpy(), .tolist(), torch.save of CUDA tensors
  kSynchronize,            // torch.cuda.synchronize(), stream or event synchronize
  kFree,                   // the device-wide sync inside cudaFree/cudaFreeHost
  kAllocator,              // the caching allocator's own calls (malloc, free, empty_cache)
  kAutotune,               // cuDNN's algorithm search (torch.backends.cudnn.benchmark): once per new shape
  kFormat,                 // print(t), str(t) of a CUDA tensor: torch/_tensor_str.py reads it back several times
};

// "item", "bool", "nonzero", "copy-to-device-pinned", ... as in the JSON
// report (never renamed: scripts match on it).
const char* operation_name(Operation op);

// What the operation is, in the user's words: ".item()", "if tensor:",
// "a blocking .to(device) of pinned memory", ...; "" for kUnknown.
const char* operation_label(Operation op);

// The operation behind `finding`, from its site's frames. Default-stream
// findings are about where work is queued, not what made it: kUnknown.
Operation classify_operation(const Finding& finding, const SiteFrames& site);

// Operations that are warm-up wherever they happen (once per new input
// shape): the report lists their findings with the warm-up.
inline bool is_one_off(Operation op) { return op == Operation::kAutotune; }

// What to do about it; "" when the operation has no hint of its own (the
// detector's hint for the cause stands). `in_backward`: the call ran on
// autograd's thread while loss.backward() waited (SiteFrames::
// user_from_waiter), so the line to change is in the forward pass.
std::string operation_hint(Operation op, bool in_backward = false);

}  // namespace syncscope
