// Detaching CUPTI between sampling windows (docs/gpu-timeline.md,
// "Sampling"): CUPTI, once its kinds have been on, keeps launches dearer
// with every kind off until cuptiFinalize, and cuptiFinalize may run only
// at the exit of a CUDA call (or with nothing in flight). So the collector
// asks (ask_detach), the next CUDA call's exit callback finalizes
// (on_api_callback), the collector settles it (settle_detach), and the
// next window attaches CUPTI again (reattach).
#pragma once

#include <cupti.h>

#include "preload/gpu_timeline/cupti_state.h"

namespace syncscope::preload::cupti {

// Called by CUPTI only while a detach is asked for (the API domains are on
// then): the first CUDA call to return finalizes CUPTI, on its own thread.
void CUPTIAPI on_api_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data);

// CUPTI attached again after a detach (every CUPTI call made it attach
// lazily; this one is the subscription): the same callbacks, clock and
// kinds as at start. False, with CUPTI left alone, when it is refused.
bool reattach(Control& c);

// A detach asked for at the last window's close, as it stands now: true
// when it is settled (cancelled while no CUDA call came, or finalized),
// false while a CUDA call's exit is finalizing CUPTI.
bool settle_detach(Control& c);

// After the kinds went off and their records were flushed: asks the next
// CUDA call to finalize CUPTI at its exit. Without the two calls this
// needs, CUPTI stays attached with its kinds off.
void ask_detach(Control& c);

}  // namespace syncscope::preload::cupti
