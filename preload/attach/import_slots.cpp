#include "preload/attach/import_slots.h"

#include <sys/mman.h>
#include <unistd.h>

namespace syncscope::preload {
namespace {

struct Walk {
  ImportVisitor visit;
  void* context;
  ObjectFilter wants;
  uintptr_t self_base;
  // The object being walked.
  const dl_phdr_info* info;
  const elf::ElfImage* image;
};

int visit_import(const elf::ImportEntry& entry, void* data) {
  auto* walk = static_cast<Walk*>(data);
  const uintptr_t address = walk->info->dlpi_addr + entry.slot;
  ImportSlot slot{reinterpret_cast<void**>(address), entry.symbol, walk->info->dlpi_name, walk->info->dlpi_addr,
                  walk->image->in_relro(entry.slot)};
  return walk->visit(slot, walk->context);
}

int visit_object(dl_phdr_info* info, size_t, void* data) {
  auto* walk = static_cast<Walk*>(data);
  if (info->dlpi_addr == walk->self_base || info->dlpi_name == nullptr) return 0;
  if (walk->wants != nullptr && !walk->wants(info->dlpi_addr, info->dlpi_name, walk->context)) return 0;
  const elf::ElfImage image = loaded_image(info);
  elf::DynamicTables tables;
  if (!image.dynamic_tables(&tables)) return 0;
  walk->info = info;
  walk->image = &image;
  return elf::for_each_import(tables, visit_import, walk);
}

int count_loads(dl_phdr_info* info, size_t, void* data) {
  *static_cast<unsigned long long*>(data) = info->dlpi_adds;
  return 1;
}

int find_self(dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<uintptr_t*>(data);
  const uintptr_t code = reinterpret_cast<uintptr_t>(&own_load_base);
  uint64_t low = 0, high = 0;
  if (loaded_image(info).load_span(&low, &high) && code >= info->dlpi_addr + low && code < info->dlpi_addr + high) {
    *out = info->dlpi_addr;
    return 1;
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
  Walk walk{visit, context, wants, own_load_base(), nullptr, nullptr};
  dl_iterate_phdr(visit_object, &walk);
}

unsigned long long objects_ever_loaded() {
  unsigned long long adds = 0;
  dl_iterate_phdr(count_loads, &adds);
  return adds;
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
