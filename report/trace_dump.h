// What `syncscope dump` prints of one trace file (tools/dump_command.h has
// the document's layout): the header, process facts, per-API counts,
// threads, the GPU timeline's summary, and as asked the events, the stacks
// symbolised and the segmentation into phases and steps, as text or JSON.
#pragma once

#include <cstdint>
#include <ostream>

#include <nlohmann/json.hpp>

#include "segmentation/segmentation.h"
#include "trace/reader.h"

namespace syncscope {

// Version of the `--json` document's layout (not of the trace format).
inline constexpr int kDumpJsonVersion = 1;

// The sections asked for beyond the ones always printed.
struct DumpSections {
  bool events = false;      // list the events in time order
  uint64_t max_events = 0;  // with events: at most this many per trace (0: all)
  bool stacks = false;      // the interned stacks, symbolised, and the loaded modules
  bool phases = false;      // the segmentation: phases, steps, events per phase
  bool gpu = false;         // list the GPU timeline's records (its summary is always printed)
  uint64_t max_gpu = 0;     // with gpu: at most this many per trace (0: all)
};

// `segmentation`: the trace's (analysis/trace_analysis.h, segment_read_trace),
// printed with sections.phases; nullptr when not asked.
nlohmann::json trace_dump_json(const ProcessTrace& trace, const Segmentation* segmentation,
                               const DumpSections& sections);
void trace_dump_text(std::ostream& out, const ProcessTrace& trace, const Segmentation* segmentation,
                     const DumpSections& sections);

}  // namespace syncscope
