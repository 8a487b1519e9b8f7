// Interning of call stacks — native PCs plus, for calls made from Python,
// the Python frames (code id and line, packed in 64 bits): each unique stack gets a small id, so an event
// carries 4 bytes instead of a stack, and each stack is written to the trace
// (and later symbolised) once. Lock-free: any thread may intern while the
// collector publishes. Fixed capacity in one lazily-committed mapping; when it
// is full, stacks are counted as dropped and events carry id 0.
#pragma once

#include <cstdint>

namespace syncscope::preload {

class StackTable {
 public:
  static constexpr uint32_t kCapacity = 1u << 16;

  bool init();  // maps the storage; false if memory cannot be had
  // Returns the id (>= 1) of the stack, interning it if new; 0 if full or uninitialised.
  uint32_t intern(const uint64_t* pcs, uint32_t depth, const uint64_t* python = nullptr, uint32_t python_depth = 0);

  struct Published {
    uint32_t id;
    const uint64_t* pcs;
    uint32_t depth;
    const uint64_t* python;  // (code id << 32) | line, innermost first
    uint32_t python_depth;
  };
  // Collector side: stacks in the order they became visible. `cursor` is the
  // caller's position; returns false when no further stack is ready yet.
  bool next_published(uint32_t* cursor, Published* out) const;
  // The native PCs of an interned stack (any thread; the stack is complete
  // once intern() has returned its id). False for 0 or an unknown id.
  bool native_frames(uint32_t id, const uint64_t** pcs, uint32_t* depth) const;
  uint64_t dropped() const;

 private:
  struct Slot;
  Slot* slots_ = nullptr;
  uint64_t* pcs_ = nullptr;     // kCapacity * kMaxStackDepth
  uint64_t* python_ = nullptr;  // kCapacity * kMaxPythonDepth
  uint32_t* order_ = nullptr;   // slot index + 1, in publication order
};

StackTable& stack_table();

}  // namespace syncscope::preload
