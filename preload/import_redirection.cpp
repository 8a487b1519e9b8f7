#include "preload/import_redirection.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cerrno>  // program_invocation_short_name
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "preload/import_slots.h"

namespace syncscope::preload {
namespace {

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

struct State {
  std::mutex mutex;
  // Exported name -> our definition; the names point into this library's
  // loaded string table, so looking a slot's symbol up allocates nothing.
  std::unordered_map<std::string_view, void*> hooks;
  std::vector<SavedSlot> saved;
  std::set<ObjectKey> scanned;  // objects already redirected
  unsigned long long last_adds = ~0ull;
};

State& state() {
  static auto* s = new State();  // never destroyed: slots may be restored at exit
  return *s;
}

int read_own_exports(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_addr != own_load_base()) return 0;
  auto* hooks = static_cast<std::unordered_map<std::string_view, void*>*>(data);
  DynamicTables tables;
  if (!read_dynamic_tables(info, &tables)) return 1;
  const size_t count = dynamic_symbol_count(tables);
  for (size_t k = 1; k < count; ++k) {
    const ElfW(Sym)& sym = tables.symbols[k];
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF) continue;
    if (ELF64_ST_VISIBILITY(sym.st_other) != STV_DEFAULT) continue;
    hooks->emplace(tables.strings + sym.st_name, reinterpret_cast<void*>(info->dlpi_addr + sym.st_value));
  }
  return 1;
}

// Our exports, read from this library's loaded image (not its file, which
// may have been rebuilt since): exactly the functions the version script
// (exports.map) exports, each a hook to redirect to.
std::unordered_map<std::string_view, void*> exported_hooks() {
  std::unordered_map<std::string_view, void*> hooks;
  dl_iterate_phdr(read_own_exports, &hooks);
  return hooks;
}

struct Pass {
  State* state;
  std::vector<ObjectKey> accepted;  // objects walked by this pass
  int written = 0;
};

// Each object is redirected once; a later pass walks only new ones.
bool not_scanned_yet(uintptr_t base, const char* path, void* data) {
  auto* pass = static_cast<Pass*>(data);
  ObjectKey key{base, path};
  if (pass->state->scanned.count(key) != 0) return false;
  pass->accepted.push_back(std::move(key));
  return true;
}

int redirect_slot(const ImportSlot& slot, void* data) {
  auto* pass = static_cast<Pass*>(data);
  auto hook = pass->state->hooks.find(slot.symbol);
  if (hook == pass->state->hooks.end()) return 0;
  void* current = __atomic_load_n(slot.address, __ATOMIC_ACQUIRE);
  if (current == hook->second) return 0;
  if (!write_import_slot(slot, hook->second)) return 0;
  pass->state->saved.push_back(
      SavedSlot{slot.address, slot.relro, current, hook->second, slot.object_base, slot.object});
  ++pass->written;
  return 0;
}

int collect_loaded(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_name != nullptr) static_cast<std::set<ObjectKey>*>(data)->emplace(info->dlpi_addr, info->dlpi_name);
  return 0;
}

std::string basename_of(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  // The executable's dlpi_name is "": name it by its file.
  return name.empty() ? std::string(program_invocation_short_name) : name;
}

}  // namespace

int redirect_imports() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  unsigned long long adds = objects_ever_loaded();
  if (adds == s.last_adds) return 0;  // nothing loaded since the last pass
  s.last_adds = adds;
  if (s.hooks.empty()) s.hooks = exported_hooks();
  Pass pass{&s, {}, 0};
  for_each_import_slot(redirect_slot, &pass, not_scanned_yet);
  s.scanned.insert(pass.accepted.begin(), pass.accepted.end());
  return pass.written;
}

RestoreResult restore_imports() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::set<ObjectKey> loaded;
  dl_iterate_phdr(collect_loaded, &loaded);
  RestoreResult result;
  // Newest first, so a slot written twice (never expected) ends at its oldest value.
  for (auto it = s.saved.rbegin(); it != s.saved.rend(); ++it) {
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
  s.saved.clear();
  s.scanned.clear();
  s.last_adds = ~0ull;
  return result;
}

RedirectionSummary redirection_summary() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  RedirectionSummary summary;
  std::map<std::string, int> per_object;
  for (const SavedSlot& slot : s.saved) ++per_object[basename_of(slot.object)];
  // Most slots first: the CUDA libraries' users lead, the one-dlsym modules trail.
  std::vector<std::pair<int, std::string>> ordered;
  for (const auto& [name, count] : per_object) ordered.emplace_back(-count, name);
  std::sort(ordered.begin(), ordered.end());
  for (const auto& [count, name] : ordered) summary.objects.push_back(name + " (" + std::to_string(-count) + ")");
  return summary;
}

}  // namespace syncscope::preload
