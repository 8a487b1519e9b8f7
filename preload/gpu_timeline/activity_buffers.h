// The buffers CUPTI fills with activity records: allocated when it asks,
// read when it hands one back (on its own thread, or the one that
// flushes), each record converted and queued for the collector. Keeps the
// trace's correlation ids unique and in issue order across CUPTI's
// attaches (cupti_detach.h), whose ids each start from 1 again.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>

namespace syncscope::preload::cupti {

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records);
void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid);

}  // namespace syncscope::preload::cupti
