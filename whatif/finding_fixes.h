// Which fix each finding's prediction assumes (issue 27, docs/what-if.md,
// "The fixes"): one rule per category and cause, here and nowhere else.
#pragma once

#include <optional>

#include "detectors/finding.h"
#include "whatif/what_if.h"

namespace syncscope::whatif {

// The fix replayed for a finding; nullopt when none is modelled.
std::optional<Fix> fix_for(const Finding& finding);

}  // namespace syncscope::whatif
