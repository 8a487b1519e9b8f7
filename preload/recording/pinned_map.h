// Which host ranges are page-locked. Copies consult it to tell pinned from
// pageable host memory without asking the runtime: allocations and
// registrations made through hooked calls are added, frees and
// unregistrations removed. Readers are lock-free (a sequence lock over a
// sorted array); writers, which are allocation calls and never the hot path,
// take a spin lock.
#pragma once

#include <cstddef>
#include <cstdint>

namespace syncscope::preload {

class PinnedMap {
 public:
  static constexpr uint32_t kCapacity = 1u << 16;

  enum class Lookup { kPinned, kMiss, kBusy };

  bool init();
  // Adds [base, base+size); a full map drops the range (the pointer-attribute
  // query on a miss still classifies it correctly, just slower).
  void add(uint64_t base, uint64_t size);
  // Removes the range starting at base, if any.
  void remove(uint64_t base);
  // Lock-free: kPinned if [ptr, ptr+len) lies in one known range, kBusy if a
  // writer kept changing the map while we looked.
  Lookup find(uint64_t ptr) const;
  uint32_t size() const;

 private:
  struct Range {
    uint64_t begin;
    uint64_t end;
  };
  Range* ranges_ = nullptr;
};

PinnedMap& pinned_map();

}  // namespace syncscope::preload
