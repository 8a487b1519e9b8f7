// What a fix changes in a replayed program (issue 27, docs/what-if.md): each
// Fix rewrites the ops of one finding site, and the changed program is
// replayed against the recorded one. A pure function of the program.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "whatif/replay.h"

namespace syncscope::whatif {

enum class Fix : uint8_t {
  // A read-back becomes an asynchronous copy read later: the copy stays on
  // its stream, the host no longer waits for it (nor for the syncs of the
  // same site).
  kReadLater,
  // An explicit sync (stream, device, event) is dropped; a site's copy, if
  // any, stays and no longer blocks.
  kDropSync,
  // A blocking or pageable copy becomes a pinned, non-blocking one: queued,
  // not waited for. Its host time stays as recorded (staging included): the
  // prediction does not count the staging copy saved.
  kPinnedAsync,
  // A copy queued on the compute stream moves to a side stream: it no longer
  // waits for compute queued before it, and the compute stream waits for it
  // (an event) before what follows.
  kSideStream,
  // The call goes altogether, its host time with it: an allocation or free
  // the caching allocator would have served (allocator churn), a free's
  // device-wide sync and unmapping with it.
  kDropCall,
};

// "read-later", "drop-sync", "pinned-async", "side-stream", "drop-call"
const char* fix_name(Fix fix);

// Whether what the replay says `fix` saves is a floor: dropping an
// allocator call (drop-call) also made the host work after it faster, which
// the replay keeps as recorded. On an H200 the four allocator twins saved
// 1.2 to 2.3 times the prediction, and with empty_cache() in the loop the
// rest of the step's host work took 15-24% longer (docs/what-if.md).
bool saving_is_a_floor(Fix fix);

struct SiteFix {
  uint32_t site = 0;
  Fix fix = Fix::kDropSync;
};

// The program with each given site's ops changed by its fix. `site_of_op`
// (one per op, trace_program.h's sites_of_ops): the sites to read instead
// of the ops' own, for a program prepared once without them; null: Op::site.
Program apply_fixes(const Program& program, const std::vector<SiteFix>& fixes,
                    const std::vector<uint32_t>* site_of_op = nullptr);

}  // namespace syncscope::whatif
