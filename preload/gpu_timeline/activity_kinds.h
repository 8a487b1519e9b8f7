// Which CUPTI activity kinds and API records are on. The API records kept
// are those of the calls that make GPU work or wait for it (the join with
// the host's events): enabled call by call where CUPTI allows it, else the
// whole kind, filtered as buffers complete (cupti_records.h).
#pragma once

#include <string>

#include "preload/gpu_timeline/cupti_state.h"

namespace syncscope::preload::cupti {

// API records for the kept calls only where CUPTI allows it per call; else
// the whole kind, filtered when buffers complete. Returns a note.
std::string enable_api_records(Control& c, bool runtime);

// Every kind and per-call API record on or off; the lists stay as they are.
void set_recording(Control& c, bool on);

}  // namespace syncscope::preload::cupti
