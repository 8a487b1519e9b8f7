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
  ObjectFilter wants;
  uintptr_t self_base;
};

int visit_relocations(const dl_phdr_info* info, const ElfW(Rela) * relocations, size_t count,
                      const DynamicTables& tables, Walk* walk) {
  for (size_t i = 0; i < count; ++i) {
    const ElfW(Rela)& r = relocations[i];
    unsigned type = ELF64_R_TYPE(r.r_info);
    if (type != kJumpSlot && type != kGlobDat) continue;
    const ElfW(Sym)& sym = tables.symbols[ELF64_R_SYM(r.r_info)];
    if (sym.st_shndx != SHN_UNDEF || sym.st_name == 0) continue;
    uintptr_t address = info->dlpi_addr + r.r_offset;
    ImportSlot slot{reinterpret_cast<void**>(address), tables.strings + sym.st_name, info->dlpi_name,
                    info->dlpi_addr, in_relro(info, address)};
    int stop = walk->visit(slot, walk->context);
    if (stop != 0) return stop;
  }
  return 0;
}

int visit_object(dl_phdr_info* info, size_t, void* data) {
  auto* walk = static_cast<Walk*>(data);
  if (info->dlpi_addr == walk->self_base || info->dlpi_name == nullptr) return 0;
  if (walk->wants != nullptr && !walk->wants(info->dlpi_addr, info->dlpi_name, walk->context)) return 0;
  DynamicTables tables;
  if (!read_dynamic_tables(info, &tables)) return 0;
  int stop = visit_relocations(info, tables.plt_relocations, tables.plt_count, tables, walk);
  if (stop == 0) stop = visit_relocations(info, tables.relocations, tables.count, tables, walk);
  return stop;
}

int count_loads(dl_phdr_info* info, size_t, void* data) {
  *static_cast<unsigned long long*>(data) = info->dlpi_adds;
  return 1;
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

void for_each_import_slot(ImportVisitor visit, void* context, ObjectFilter wants) {
  Walk walk{visit, context, wants, own_load_base()};
  dl_iterate_phdr(visit_object, &walk);
}

unsigned long long objects_ever_loaded() {
  unsigned long long adds = 0;
  dl_iterate_phdr(count_loads, &adds);
  return adds;
}

bool read_dynamic_tables(const dl_phdr_info* info, DynamicTables* out) {
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    }
  }
  if (dynamic == nullptr) return false;
  const uintptr_t base = info->dlpi_addr;
  size_t plt_bytes = 0, rela_bytes = 0;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    const uintptr_t at = absolute(d->d_un.d_ptr, base);
    switch (d->d_tag) {
      case DT_SYMTAB: out->symbols = reinterpret_cast<const ElfW(Sym)*>(at); break;
      case DT_STRTAB: out->strings = reinterpret_cast<const char*>(at); break;
      case DT_JMPREL: out->plt_relocations = reinterpret_cast<const ElfW(Rela)*>(at); break;
      case DT_PLTRELSZ: plt_bytes = d->d_un.d_val; break;
      case DT_RELA: out->relocations = reinterpret_cast<const ElfW(Rela)*>(at); break;
      case DT_RELASZ: rela_bytes = d->d_un.d_val; break;
      case DT_HASH: out->sysv_hash = reinterpret_cast<const uint32_t*>(at); break;
      case DT_GNU_HASH: out->gnu_hash = reinterpret_cast<const uint32_t*>(at); break;
      default: break;
    }
  }
  out->plt_count = out->plt_relocations != nullptr ? plt_bytes / sizeof(ElfW(Rela)) : 0;
  out->count = out->relocations != nullptr ? rela_bytes / sizeof(ElfW(Rela)) : 0;
  return out->symbols != nullptr && out->strings != nullptr;
}

size_t dynamic_symbol_count(const DynamicTables& tables) {
  if (tables.sysv_hash != nullptr) return tables.sysv_hash[1];  // nchain
  const uint32_t* gnu = tables.gnu_hash;
  if (gnu == nullptr) return 0;
  const uint32_t buckets = gnu[0], first = gnu[1], bloom_words = gnu[2];
  const auto* bucket = reinterpret_cast<const uint32_t*>(reinterpret_cast<const ElfW(Addr)*>(gnu + 4) + bloom_words);
  const uint32_t* chain = bucket + buckets;
  uint32_t last = 0;
  for (uint32_t i = 0; i < buckets; ++i) last = bucket[i] > last ? bucket[i] : last;
  if (last < first) return first;
  while ((chain[last - first] & 1u) == 0) ++last;  // the low bit ends a chain
  return last + 1;
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
