#include "preload/import_slots.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace syncscope::preload {
namespace {

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

#if defined(__x86_64__)
constexpr unsigned kJumpSlot = R_X86_64_JUMP_SLOT;
constexpr unsigned kGlobDat = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
constexpr unsigned kJumpSlot = R_AARCH64_JUMP_SLOT;
constexpr unsigned kGlobDat = R_AARCH64_GLOB_DAT;
#endif

struct Walk {
  ImportVisitor visit;
  void* context;
  uintptr_t self_base;
  int stop;
};

int visit_relocations(const dl_phdr_info* info, const ElfW(Rela) * relocations, size_t count,
                      const ElfW(Sym) * symbols, const char* strings, Walk* walk) {
  for (size_t i = 0; i < count; ++i) {
    const ElfW(Rela)& r = relocations[i];
    unsigned type = ELF64_R_TYPE(r.r_info);
    if (type != kJumpSlot && type != kGlobDat) continue;
    const ElfW(Sym)& sym = symbols[ELF64_R_SYM(r.r_info)];
    if (sym.st_shndx != SHN_UNDEF || sym.st_name == 0) continue;
    uintptr_t address = info->dlpi_addr + r.r_offset;
    ImportSlot slot{reinterpret_cast<void**>(address), strings + sym.st_name, info->dlpi_name, info->dlpi_addr,
                    in_relro(info, address)};
    int stop = walk->visit(slot, walk->context);
    if (stop != 0) return stop;
  }
  return 0;
}

int visit_object(dl_phdr_info* info, size_t, void* data) {
  auto* walk = static_cast<Walk*>(data);
  if (info->dlpi_addr == walk->self_base || info->dlpi_name == nullptr) return 0;
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
  int stop = 0;
  if (jmprel != 0) {
    stop = visit_relocations(info, reinterpret_cast<const ElfW(Rela)*>(jmprel), pltrelsz / sizeof(ElfW(Rela)),
                             symbols, strings, walk);
  }
  if (stop == 0 && rela != 0) {
    stop = visit_relocations(info, reinterpret_cast<const ElfW(Rela)*>(rela), relasz / sizeof(ElfW(Rela)), symbols,
                             strings, walk);
  }
  walk->stop = stop;
  return stop;
}

int find_self(dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<uintptr_t*>(data);
  const uintptr_t code = reinterpret_cast<uintptr_t>(&own_load_base);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (code >= begin && code < begin + ph.p_memsz) {
      *out = info->dlpi_addr;
      return 1;
    }
  }
  return 0;
}

}  // namespace

uintptr_t own_load_base() {
  static uintptr_t base = 0;
  if (base == 0) dl_iterate_phdr(find_self, &base);
  return base;
}

void for_each_import_slot(ImportVisitor visit, void* context) {
  Walk walk{visit, context, own_load_base(), 0};
  dl_iterate_phdr(visit_object, &walk);
}

bool write_import_slot(void** address, bool relro, void* value) {
  const uintptr_t page_size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  auto page = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(address) & ~(page_size - 1));
  if (relro && mprotect(page, page_size, PROT_READ | PROT_WRITE) != 0) return false;
  __atomic_store_n(address, value, __ATOMIC_RELEASE);
  if (relro) mprotect(page, page_size, PROT_READ);
  return true;
}

bool write_import_slot(const ImportSlot& slot, void* value) {
  return write_import_slot(slot.address, slot.relro, value);
}

}  // namespace syncscope::preload
