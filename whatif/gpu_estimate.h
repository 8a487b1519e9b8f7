// GPU times estimated from host timing alone, for a recording without a GPU
// timeline (issue 27, docs/what-if.md, "Without the timeline").
//
// What the host saw bounds what the GPU did: when a sync waited W after the
// call began at S, the work queued on what it waits for since that stream
// was last known idle finished at S + call + W. All of it may have run back
// to back from the first launch (the most GPU time: kHigh), or the last op
// may have held all of it (the least: kLow). Both replay the recorded waits
// exactly; a fix replayed under each gives the prediction's interval.
// Work no wait ever covered gets no GPU time in either bound.
#pragma once

#include "whatif/replay.h"

namespace syncscope::whatif {

enum class GpuBound : uint8_t { kLow, kHigh };

// The program with every gpu_ns set from the recorded waits (Op::waited_ns)
// under the given bound; recorded gpu_ns values are replaced.
Program with_estimated_gpu_time(const Program& program, GpuBound bound);

}  // namespace syncscope::whatif
