// Tracks which loaded objects (executable, shared libraries) the trace has
// described, so every stack PC can be symbolised offline against its file.
// Collector thread only.
#pragma once

#include <cstdint>
#include <vector>

namespace syncscope {
class TraceWriter;
}

namespace syncscope::preload {

class ModuleTracker {
 public:
  // Writes kModule records (each followed by its GNU build-id, read from the
  // loaded image) for any PC not covered by a module already written,
  // rescanning the loaded objects (dl_iterate_phdr) at most once per call.
  void cover(const uint64_t* pcs, uint32_t depth, TraceWriter& writer);
  void reset() { known_.clear(); }

 private:
  struct Range {
    uint64_t begin;
    uint64_t end;
  };
  bool known(uint64_t pc) const;
  void rescan(TraceWriter& writer);
  std::vector<Range> known_;
};

}  // namespace syncscope::preload
