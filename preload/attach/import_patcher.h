// The one import patcher: points the import slots (import_slots.h) that
// bind a set of symbols at replacements, remembers what each held, and puts
// them back. Behind both attach's redirection of every hook
// (import_redirection.h) and the PyEval_RestoreThread/SaveThread routing of
// a preloaded recorder (import_patch.h).
//
// Safety rules, whoever the caller:
// - only import slots are written: undefined symbols' JUMP_SLOT and GLOB_DAT
//   relocations (never an object's own definitions, never this library's);
// - a slot inside PT_GNU_RELRO is written with its page made writable for
//   the moment and read-only again right after;
// - restore() writes back only slots that still hold the replacement written
//   here: one someone rewrote since (another tool, a lazy binding done
//   meanwhile by a second patcher) is left alone, one of an unloaded object
//   is not touched.
//
// Per-symbol state: each object is scanned once for the current set of
// targets; adding or re-pointing a target rescans every object, so a symbol
// added later is patched in the objects scanned before it too.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "preload/attach/import_slots.h"

namespace syncscope::preload {

struct ImportPatch {
  const char* symbol;  // must outlive the patcher (a literal, a loaded string table)
  void* replacement;
};

struct RestoreResult {
  int restored = 0;  // slots written back to their original value
  int left = 0;      // slots that no longer held our replacement (someone else wrote them): left alone
  int gone = 0;      // slots of objects unloaded meanwhile
};

class ImportPatcher {
 public:
  // `only`: when given, the objects it accepts are the only ones patched.
  explicit ImportPatcher(ObjectFilter only = nullptr, void* only_context = nullptr)
      : only_(only), only_context_(only_context) {}

  // Adds or re-points targets, then patches the slots of every object not
  // scanned since the targets last changed (all of them the first time).
  // Cheap when the targets are unchanged and no object was loaded since the
  // last call. Returns how many slots this call wrote.
  int patch(const ImportPatch* targets, int count);
  int patch() { return patch(nullptr, 0); }
  // As patch(), but returns 0 at once when another thread holds the
  // patcher: for callers inside a hook, which must never wait behind
  // another thread's scan, nor on a lock a fork() left held in the child.
  int try_patch(const ImportPatch* targets, int count);

  // Puts every patched slot back (newest first) and forgets them; the
  // targets stay, so a later patch() starts over.
  RestoreResult restore();

  // Slots currently patched, per importing object path ("" is the
  // executable), in path order.
  std::vector<std::pair<std::string, int>> patched_per_object() const;
  size_t target_count() const;

 private:
  struct SavedSlot {
    void** address;
    bool relro;
    void* original;
    void* replacement;
    uintptr_t object_base;
    std::string object;
  };
  // A loaded object, told apart from one loaded later at the same address.
  using ObjectKey = std::pair<uintptr_t, std::string>;
  struct Pass;

  int patch_locked(const ImportPatch* targets, int count);
  static bool accept_object(uintptr_t base, const char* path, void* pass);
  static int patch_slot(const ImportSlot& slot, void* pass);

  ObjectFilter only_;
  void* only_context_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string_view, void*> targets_;
  std::vector<SavedSlot> saved_;
  std::set<ObjectKey> scanned_;  // objects patched for the current targets
  unsigned long long last_adds_ = ~0ull;
};

}  // namespace syncscope::preload
