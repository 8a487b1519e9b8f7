#include "preload/import_redirection.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
  std::set<uintptr_t> scanned;  // load bases of objects already redirected
  unsigned long long last_adds = ~0ull;
};

State& state() {
  static auto* s = new State();  // never destroyed: slots may be restored at exit
  return *s;
}

// Our exports, read from this library's own file: exactly the functions the
// version script (exports.map) exports, each a hook to redirect to.
std::unordered_map<std::string, void*> exported_hooks() {
  std::unordered_map<std::string, void*> hooks;
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&own_load_base), &self) == 0 || self.dli_fname == nullptr) return hooks;
  const uintptr_t base = own_load_base();
  int fd = open(self.dli_fname, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return hooks;
  struct stat st {};
  void* map = fstat(fd, &st) == 0 ? mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED) return hooks;
  const auto* bytes = static_cast<const unsigned char*>(map);
  const auto* header = reinterpret_cast<const ElfW(Ehdr)*>(bytes);
  const auto* sections = reinterpret_cast<const ElfW(Shdr)*>(bytes + header->e_shoff);
  for (int i = 0; i < header->e_shnum; ++i) {
    if (sections[i].sh_type != SHT_DYNSYM) continue;
    const auto* symbols = reinterpret_cast<const ElfW(Sym)*>(bytes + sections[i].sh_offset);
    const char* names = reinterpret_cast<const char*>(bytes + sections[sections[i].sh_link].sh_offset);
    size_t count = sections[i].sh_size / sizeof(ElfW(Sym));
    for (size_t k = 0; k < count; ++k) {
      const ElfW(Sym)& sym = symbols[k];
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF) continue;
      if (ELF64_ST_VISIBILITY(sym.st_other) != STV_DEFAULT) continue;
      hooks.emplace(names + sym.st_name, reinterpret_cast<void*>(base + sym.st_value));
    }
  }
  munmap(map, st.st_size);
  return hooks;
}

struct Pass {
  State* state;
  std::set<uintptr_t> seen_now;
  int written = 0;
};

int redirect_slot(const ImportSlot& slot, void* data) {
  auto* pass = static_cast<Pass*>(data);
  if (pass->state->scanned.count(slot.object_base) != 0) return 0;
  pass->seen_now.insert(slot.object_base);
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
