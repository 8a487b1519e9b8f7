#include "preload/recording/module_tracker.h"

#include <link.h>
#include <unistd.h>

#include <string>

#include "elf/elf_image.h"
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
    elf::BuildId build_id;
  };
  std::vector<Found> found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* out = static_cast<std::vector<Found>*>(data);
        const elf::ElfImage image = elf::ElfImage::loaded(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum);
        uint64_t lo = 0, hi = 0;
        if (!image.load_span(&lo, &hi)) return 0;
        // The build-id from the note the loader mapped (no file I/O here):
        // the report checks it against the file it symbolises with.
        out->push_back({info->dlpi_addr + lo, info->dlpi_addr + hi, info->dlpi_addr,
                        info->dlpi_name ? info->dlpi_name : "", image.build_id()});
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
    writer.add_module_build_id(f.begin, f.build_id.bytes, f.build_id.size);
    known_.push_back({f.begin, f.end});
  }
}

}  // namespace syncscope::preload
