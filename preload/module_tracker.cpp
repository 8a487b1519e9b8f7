#include "preload/module_tracker.h"

#include <link.h>
#include <unistd.h>

#include <string>

#include "trace/writer.h"

namespace syncscope::preload {
namespace {


std::string executable_path() {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string();
}

}  // namespace

bool ModuleTracker::known(uint64_t pc) const {
  for (const Range& r : known_) {
    if (pc >= r.begin && pc < r.end) return true;
  }
  return false;
}

void ModuleTracker::cover(const uint64_t* pcs, uint32_t depth, TraceWriter& writer) {
  for (uint32_t i = 0; i < depth; ++i) {
    if (!known(pcs[i])) {
      rescan(writer);
      return;
    }
  }
}

void ModuleTracker::rescan(TraceWriter& writer) {
  struct Found {
    uint64_t begin, end, bias;
    std::string path;
  };
  std::vector<Found> found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* out = static_cast<std::vector<Found>*>(data);
        uint64_t lo = ~0ull, hi = 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          uint64_t b = info->dlpi_addr + ph.p_vaddr;
          if (b < lo) lo = b;
          if (b + ph.p_memsz > hi) hi = b + ph.p_memsz;
        }
        if (hi > lo) out->push_back({lo, hi, info->dlpi_addr, info->dlpi_name ? info->dlpi_name : ""});
        return 0;
      },
      &found);
  for (Found& f : found) {
    bool already = false;
    for (const Range& r : known_) already = already || (r.begin == f.begin && r.end == f.end);
    if (already) continue;
    // The main program is listed with an empty name; the vDSO by its soname.
    if (f.path.empty()) f.path = executable_path();
    writer.add_module(f.begin, f.end, f.bias, f.path);
    known_.push_back({f.begin, f.end});
  }
}

}  // namespace syncscope::preload
