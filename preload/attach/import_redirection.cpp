#include "preload/attach/import_redirection.h"

#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cerrno>  // program_invocation_short_name
#include <utility>

#include "preload/attach/import_slots.h"

namespace syncscope::preload {
namespace {

ImportPatcher& patcher() {
  static auto* p = new ImportPatcher();  // never destroyed: slots may be restored at exit
  return *p;
}

int read_own_exports(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_addr != own_load_base()) return 0;
  elf::DynamicTables tables;
  if (!loaded_image(info).dynamic_tables(&tables)) return 1;
  struct Collect {
    uintptr_t base;
    std::vector<ImportPatch>* hooks;
  } collect{info->dlpi_addr, static_cast<std::vector<ImportPatch>*>(data)};
  elf::for_each_dynamic_symbol(
      tables,
      [](const elf::SymbolEntry& s, void* context) -> int {
        auto* c = static_cast<Collect*>(context);
        if (ELF64_ST_TYPE(s.sym->st_info) != STT_FUNC || s.sym->st_shndx == SHN_UNDEF) return 0;
        if (ELF64_ST_VISIBILITY(s.sym->st_other) != STV_DEFAULT) return 0;
        c->hooks->push_back(ImportPatch{s.name, reinterpret_cast<void*>(c->base + s.sym->st_value)});
        return 0;
      },
      &collect);
  return 1;
}

// Our exports, read from this library's loaded image (not its file, which
// may have been rebuilt since): exactly the functions the version script
// (exports.map) exports, each a hook to redirect to. The names point into
// the loaded string table, which lives as long as this library.
std::vector<ImportPatch> exported_hooks() {
  std::vector<ImportPatch> hooks;
  dl_iterate_phdr(read_own_exports, &hooks);
  return hooks;
}

std::string basename_of(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  // The executable's dlpi_name is "": name it by its file.
  return name.empty() ? std::string(program_invocation_short_name) : name;
}

}  // namespace

int redirect_imports() {
  ImportPatcher& p = patcher();
  if (p.target_count() == 0) {
    std::vector<ImportPatch> hooks = exported_hooks();
    return p.patch(hooks.data(), static_cast<int>(hooks.size()));
  }
  return p.patch();
}

RestoreResult restore_imports() { return patcher().restore(); }

RedirectionSummary redirection_summary() {
  RedirectionSummary summary;
  // Most slots first: the CUDA libraries' users lead, the one-dlsym modules trail.
  std::vector<std::pair<int, std::string>> ordered;
  for (const auto& [object, count] : patcher().patched_per_object()) ordered.emplace_back(-count, basename_of(object));
  std::sort(ordered.begin(), ordered.end());
  for (const auto& [count, name] : ordered) summary.objects.push_back(name + " (" + std::to_string(-count) + ")");
  return summary;
}

}  // namespace syncscope::preload
