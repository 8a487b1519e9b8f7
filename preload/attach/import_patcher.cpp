#include "preload/attach/import_patcher.h"

#include <link.h>

#include <map>

namespace syncscope::preload {

struct ImportPatcher::Pass {
  ImportPatcher* patcher;
  std::vector<ObjectKey> accepted;  // objects walked by this pass
  int written = 0;
};

bool ImportPatcher::accept_object(uintptr_t base, const char* path, void* data) {
  auto* pass = static_cast<Pass*>(data);
  ImportPatcher& p = *pass->patcher;
  if (p.only_ != nullptr && !p.only_(base, path, p.only_context_)) return false;
  ObjectKey key{base, path};
  if (p.scanned_.count(key) != 0) return false;
  pass->accepted.push_back(std::move(key));
  return true;
}

int ImportPatcher::patch_slot(const ImportSlot& slot, void* data) {
  auto* pass = static_cast<Pass*>(data);
  ImportPatcher& p = *pass->patcher;
  auto target = p.targets_.find(slot.symbol);
  if (target == p.targets_.end()) return 0;
  void* current = __atomic_load_n(slot.address, __ATOMIC_ACQUIRE);
  if (current == target->second) return 0;  // already ours (a rescan after a target change)
  if (!write_import_slot(slot, target->second)) return 0;
  p.saved_.push_back(SavedSlot{slot.address, slot.relro, current, target->second, slot.object_base, slot.object});
  ++pass->written;
  return 0;
}

int ImportPatcher::patch(const ImportPatch* targets, int count) {
  std::lock_guard<std::mutex> lock(mutex_);
  return patch_locked(targets, count);
}

int ImportPatcher::try_patch(const ImportPatch* targets, int count) {
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  return lock.owns_lock() ? patch_locked(targets, count) : 0;
}

int ImportPatcher::patch_locked(const ImportPatch* targets, int count) {
  for (int i = 0; i < count; ++i) {
    auto [it, added] = targets_.try_emplace(targets[i].symbol, targets[i].replacement);
    if (!added && it->second == targets[i].replacement) continue;
    it->second = targets[i].replacement;
    // A new or re-pointed target: every object must be looked at again for it.
    scanned_.clear();
    last_adds_ = ~0ull;
  }
  if (targets_.empty()) return 0;
  const unsigned long long adds = objects_ever_loaded();
  if (adds == last_adds_) return 0;  // nothing loaded since the last pass
  last_adds_ = adds;
  Pass pass{this, {}, 0};
  for_each_import_slot(patch_slot, &pass, accept_object);
  scanned_.insert(pass.accepted.begin(), pass.accepted.end());
  return pass.written;
}

namespace {

int collect_loaded(dl_phdr_info* info, size_t, void* data) {
  using Key = std::pair<uintptr_t, std::string>;
  if (info->dlpi_name != nullptr) static_cast<std::set<Key>*>(data)->emplace(info->dlpi_addr, info->dlpi_name);
  return 0;
}

}  // namespace

RestoreResult ImportPatcher::restore() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::set<ObjectKey> loaded;
  dl_iterate_phdr(collect_loaded, &loaded);
  RestoreResult result;
  // Newest first, so a slot written twice ends at its oldest value.
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    if (loaded.count(ObjectKey{it->object_base, it->object}) == 0) {
      ++result.gone;
      continue;
    }
    if (__atomic_load_n(it->address, __ATOMIC_ACQUIRE) != it->replacement) {
      ++result.left;
      continue;
    }
    if (write_import_slot(it->address, it->relro, it->original)) {
      ++result.restored;
    } else {
      ++result.left;
    }
  }
  saved_.clear();
  scanned_.clear();
  last_adds_ = ~0ull;
  return result;
}

std::vector<std::pair<std::string, int>> ImportPatcher::patched_per_object() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, int> counts;
  for (const SavedSlot& slot : saved_) ++counts[slot.object];
  return {counts.begin(), counts.end()};
}

size_t ImportPatcher::target_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return targets_.size();
}

}  // namespace syncscope::preload
