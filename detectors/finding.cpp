#include "detectors/finding.h"

namespace syncscope {

const char* category_name(Category c) {
  switch (c) {
    case Category::kHiddenSync:
      return "hidden-sync";
    case Category::kPageableCopy:
      return "pageable-copy";
    case Category::kAllocatorChurn:
      return "allocator-churn";
    case Category::kDefaultStream:
      return "default-stream";
  }
  return "unknown";
}

}  // namespace syncscope
