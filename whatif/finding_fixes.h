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

}  // namespace syncscope::whatif
