// What fixing each steady finding saves (issue 27, docs/what-if.md): the
// phase's steady steps replayed with and without each fix (whatif/), set on
// the analysis's findings (Finding::predicted and the rest) with the
// phases' "all fixed", and the findings ranked again by it. The replay
// needs a phase's events: a trace read whole, or one window of a trace read
// in windows (detectors/windowed_predictions.h).
#pragma once

#include "detectors/analysis.h"
#include "trace/code_ownership.h"
#include "trace/reader.h"

namespace syncscope {

// `code`: --user-code, --library-code (whatif/statement_span.h).
void add_predictions(const ProcessTrace& trace, Analysis* analysis, const CodeOwnershipOptions& code = {});

}  // namespace syncscope
