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

struct State {
  std::mutex mutex;
  std::unordered_map<std::string, void*> hooks;  // exported name -> our definition
  std::vector<SavedSlot> saved;
  std::set<std::pair<uintptr_t, std::string>> scanned;  // objects already redirected (base, path)
  unsigned long long last_adds = ~0ull;
};

State& state() {
  static auto* s = new State();  // never destroyed: slots may be restored at exit
  return *s;
}

// Number of symbols in a dynamic symbol table, from its hash table (the
// dynamic section gives the table's address, not its length).
size_t symbol_count(const uint32_t* sysv_hash, const uint32_t* gnu_hash) {
  if (sysv_hash != nullptr) return sysv_hash[1];  // nchain
  if (gnu_hash == nullptr) return 0;
  const uint32_t buckets = gnu_hash[0], first = gnu_hash[1], bloom_words = gnu_hash[2];
  const auto* bucket = reinterpret_cast<const uint32_t*>(reinterpret_cast<const ElfW(Addr)*>(gnu_hash + 4) +
                                                         bloom_words);
  const uint32_t* chain = bucket + buckets;
  uint32_t last = 0;
  for (uint32_t i = 0; i < buckets; ++i) last = bucket[i] > last ? bucket[i] : last;
  if (last < first) return first;
  while ((chain[last - first] & 1u) == 0) ++last;  // the low bit ends a chain
  return last + 1;
}

int read_own_exports(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_addr != own_load_base()) return 0;
  auto* hooks = static_cast<std::unordered_map<std::string, void*>*>(data);
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    }
  }
  if (dynamic == nullptr) return 1;
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  const uint32_t *sysv_hash = nullptr, *gnu_hash = nullptr;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    // ld.so has relocated these entries to absolute addresses.
    switch (d->d_tag) {
      case DT_SYMTAB: symbols = reinterpret_cast<const ElfW(Sym)*>(d->d_un.d_ptr); break;
      case DT_STRTAB: names = reinterpret_cast<const char*>(d->d_un.d_ptr); break;
      case DT_HASH: sysv_hash = reinterpret_cast<const uint32_t*>(d->d_un.d_ptr); break;
      case DT_GNU_HASH: gnu_hash = reinterpret_cast<const uint32_t*>(d->d_un.d_ptr); break;
      default: break;
    }
  }
  if (symbols == nullptr || names == nullptr) return 1;
  const size_t count = symbol_count(sysv_hash, gnu_hash);
  for (size_t k = 1; k < count; ++k) {
    const ElfW(Sym)& sym = symbols[k];
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF) continue;
    if (ELF64_ST_VISIBILITY(sym.st_other) != STV_DEFAULT) continue;
    hooks->emplace(names + sym.st_name, reinterpret_cast<void*>(info->dlpi_addr + sym.st_value));
  }
  return 1;
}

// Our exports, read from this library's loaded image (not its file, which
// may have been rebuilt since): exactly the functions the version script
// (exports.map) exports, each a hook to redirect to.
std::unordered_map<std::string, void*> exported_hooks() {
  std::unordered_map<std::string, void*> hooks;
  dl_iterate_phdr(read_own_exports, &hooks);
  return hooks;
}

struct Pass {
  State* state;
  std::set<std::pair<uintptr_t, std::string>> seen_now;
  int written = 0;
};

int redirect_slot(const ImportSlot& slot, void* data) {
  auto* pass = static_cast<Pass*>(data);
  // (Another object may be loaded later where an unloaded one was.)
  std::pair<uintptr_t, std::string> object{slot.object_base, slot.object};
  if (pass->state->scanned.count(object) != 0) return 0;
  pass->seen_now.insert(std::move(object));
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

int count_loads(dl_phdr_info* info, size_t, void* data) {
  *static_cast<unsigned long long*>(data) = info->dlpi_adds;
  return 1;
}

int collect_loaded(dl_phdr_info* info, size_t, void* data) {
  static_cast<std::set<uintptr_t>*>(data)->insert(info->dlpi_addr);
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
  unsigned long long adds = 0;
  dl_iterate_phdr(count_loads, &adds);
  if (adds == s.last_adds) return 0;  // nothing loaded since the last pass
  s.last_adds = adds;
  if (s.hooks.empty()) s.hooks = exported_hooks();
  Pass pass{&s, {}, 0};
  for_each_import_slot(redirect_slot, &pass);
  s.scanned.insert(pass.seen_now.begin(), pass.seen_now.end());
  return pass.written;
}

RestoreResult restore_imports() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::set<uintptr_t> loaded;
  dl_iterate_phdr(collect_loaded, &loaded);
  RestoreResult result;
  // Newest first, so a slot written twice (never expected) ends at its oldest value.
  for (auto it = s.saved.rbegin(); it != s.saved.rend(); ++it) {
    if (loaded.count(it->object_base) == 0) {
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
  summary.slots = static_cast<int>(s.saved.size());
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
