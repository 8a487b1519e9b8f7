// One stretch of a recording: what `syncscope report --between START,END`
// reports (syncscope.watch() under `syncscope run`, or nested in another
// watch, docs/python.md). Offline, on a trace already read.
#pragma once

#include <cstdint>

#include "trace/reader.h"

namespace syncscope {

// Keeps the calls (and syncscope's markers) that began inside [start_ns,
// end_ns], on the trace clock (CLOCK_MONOTONIC ns), and the GPU records that
// belong to them: work joined to a kept call, work joined to none that
// began inside, API records that began inside. Stacks, Python code, modules
// and process facts stay whole (the kept events refer to them), and so do
// the GPU timeline's sampling bursts (gpu_windows): cut to the stretch they could leave
// none, which would read as a full timeline. The drop counts stay the whole
// trace's. Events stay sorted; GPU work's event_index follows its event. A call that began before the stretch (a
// stream created earlier) is not seen, as in a session attached late.
void restrict_to_stretch(ProcessTrace& trace, uint64_t start_ns, uint64_t end_ns);

}  // namespace syncscope
