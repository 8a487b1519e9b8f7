#include "preload/import_patch.h"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <set>

namespace syncscope::preload {
namespace {

struct PatchContext {
  const char* symbol;
  void* replacement;
  uintptr_t self_base;
  int written;
};

uintptr_t absolute(uintptr_t value, uintptr_t base) {
  // ld.so relocates most DT_* pointers in place; the vDSO's are not.
  return value < base ? value + base : value;
}

bool in_relro(const dl_phdr_info* info, uintptr_t address) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_GNU_RELRO) continue;
    uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (address >= begin && address < begin + ph.p_memsz) return true;
  }
  return false;
}

void write_slot(const dl_phdr_info* info, void** slot, void* value) {
  const uintptr_t page_size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  auto page = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(slot) & ~(page_size - 1));
  bool relro = in_relro(info, reinterpret_cast<uintptr_t>(slot));
  if (relro && mprotect(page, page_size, PROT_READ | PROT_WRITE) != 0) return;
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  if (relro) mprotect(page, page_size, PROT_READ);
}

void patch_relocations(const dl_phdr_info* info, const ElfW(Rela) * relocations, size_t count,
                       const ElfW(Sym) * symbols, const char* strings, PatchContext* context) {
  for (size_t i = 0; i < count; ++i) {
    const ElfW(Rela)& r = relocations[i];
    unsigned type = ELF64_R_TYPE(r.r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    const ElfW(Sym)& sym = symbols[ELF64_R_SYM(r.r_info)];
    if (sym.st_shndx != SHN_UNDEF || std::strcmp(strings + sym.st_name, context->symbol) != 0) continue;
    auto slot = reinterpret_cast<void**>(info->dlpi_addr + r.r_offset);
    if (*slot == context->replacement) continue;
    write_slot(info, slot, context->replacement);
    ++context->written;
  }
}

int patch_object(dl_phdr_info* info, size_t, void* data) {
  auto* context = static_cast<PatchContext*>(data);
  if (info->dlpi_addr == context->self_base || info->dlpi_name == nullptr) return 0;
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    }
  }
  if (dynamic == nullptr) return 0;
  uintptr_t symtab = 0, strtab = 0, jmprel = 0, rela = 0;
  size_t pltrelsz = 0, relasz = 0;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB: symtab = absolute(d->d_un.d_ptr, info->dlpi_addr); break;
      case DT_STRTAB: strtab = absolute(d->d_un.d_ptr, info->dlpi_addr); break;
      case DT_JMPREL: jmprel = absolute(d->d_un.d_ptr, info->dlpi_addr); break;
      case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
      case DT_RELA: rela = absolute(d->d_un.d_ptr, info->dlpi_addr); break;
      case DT_RELASZ: relasz = d->d_un.d_val; break;
      default: break;
    }
  }
  if (symtab == 0 || strtab == 0) return 0;
  auto symbols = reinterpret_cast<const ElfW(Sym)*>(symtab);
  auto strings = reinterpret_cast<const char*>(strtab);
  if (jmprel != 0) {
    patch_relocations(info, reinterpret_cast<const ElfW(Rela)*>(jmprel), pltrelsz / sizeof(ElfW(Rela)), symbols,
                      strings, context);
  }
  if (rela != 0) {
    patch_relocations(info, reinterpret_cast<const ElfW(Rela)*>(rela), relasz / sizeof(ElfW(Rela)), symbols,
                      strings, context);
  }
  return 0;
}

int find_self(dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<std::pair<uintptr_t, uintptr_t>*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (out->first >= begin && out->first < begin + ph.p_memsz) {
      out->second = info->dlpi_addr;
      return 1;
    }
  }
  return 0;
}

// Objects added since the last scan (dlpi_adds counts loads, never decreases).
int count_loads(dl_phdr_info* info, size_t, void* data) {
  *static_cast<unsigned long long*>(data) = info->dlpi_adds;
  return 1;
}

}  // namespace

int patch_imports(const char* symbol, void* replacement) {
  static unsigned long long last_adds = ~0ull;
  unsigned long long adds = 0;
  dl_iterate_phdr(count_loads, &adds);
  if (adds == last_adds) return 0;
  last_adds = adds;
  std::pair<uintptr_t, uintptr_t> self{reinterpret_cast<uintptr_t>(&patch_imports), 0};
  dl_iterate_phdr(find_self, &self);
  PatchContext context{symbol, replacement, self.second, 0};
  dl_iterate_phdr(patch_object, &context);
  return context.written;
}

}  // namespace syncscope::preload
