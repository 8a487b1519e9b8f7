// Which fix each finding's prediction assumes (issue 27, docs/what-if.md,
// "The fixes"): one rule per category and cause, here and nowhere else.
#pragma once

#include <optional>

#include "detectors/finding.h"
#include "sites/known_sites.h"
#include "sites/sync_operation.h"
#include "whatif/what_if.h"

namespace syncscope::whatif {

// The fix replayed for a finding; nullopt when none is modelled. The
// operation (sites/sync_operation.h) picks the fix its hint gives first:
// a read-back printed or logged goes with its statement (every N steps),
// a tensor used as a bool is decided on the GPU instead (the statement
// stays, its read-back goes: copy, wait and the work between), a mask's
// selection takes a fixed shape (the same, a floor), a Python list as an
// index becomes a slice (the statement's work goes). kUnknown: by cause
// alone. A known library site whose entry names a replay (the fix its
// hint's setting makes: Trainer's nan/inf filter turned off removes the
// whole check) takes that fix instead.
std::optional<Fix> fix_for(const Finding& finding, Operation operation = Operation::kUnknown,
                           const KnownSite* known_site = nullptr);

// Whether the fix as its hint gives it also takes work off the training
// thread that the replay keeps, so that its saving is a floor whatever
// saving_is_a_floor(fix) says: a pageable batch copied to the device, made
// pinned-async by DataLoader(pin_memory=True, num_workers>=1), whose
// pin-memory thread also takes each batch off the workers' queue (with
// num_workers=0 the loading itself leaves the thread). On an H100 that
// saved lightning_mlp.py 453.2 µs a step, where the batch copy's staging
// and wait were about 140 µs (docs/what-if.md).
bool moves_loading_off_the_thread(Fix fix, Operation operation);

}  // namespace syncscope::whatif
