// Each steady finding's predicted saving, and all of a phase's fixed at once
// (issue 27, docs/what-if.md): the phase's steady steps replayed with and
// without the finding's fix (finding_fixes.h). A pure function of the trace
// and its analysis.
#pragma once

#include <optional>
#include <vector>

#include "detectors/analysis.h"
#include "sites/known_sites.h"
#include "sites/sync_operation.h"
#include "trace/code_ownership.h"
#include "trace/reader.h"
#include "whatif/prediction.h"
#include "whatif/what_if.h"

namespace syncscope::whatif {

struct FindingPrediction {
  Fix fix = Fix::kDropSync;
  Prediction prediction;
  // The fix saves at least this (saving_is_a_floor): drop-call, and
  // every-n-steps unless Python line events bounded each execution of the
  // statement (statement_span.h).
  bool floor = false;
  // The fix saves at most this (saving_is_a_ceiling): side-stream.
  bool ceiling = false;
  // The operations its setting drops besides the site's calls
  // (SiteFix::drops_operations: GradScaler's seven under bf16).
  uint32_t drops_operations = 0;
};

struct PhasePrediction {
  int phase_index = -1;  // into Analysis::phases
  // Every predicted finding fixed in the phase's steps: its own, and those
  // of another phase whose calls run inside them (an evaluation inside the
  // training loop).
  Prediction all_fixed;
  // The findings (indices into Analysis::findings) whose calls the fixes
  // changed in the phase's steps.
  std::vector<size_t> findings;
};

struct Predictions {
  // Parallel to Analysis::findings: nullopt for findings not predicted
  // (not steady, no phase, no modelled fix, or a phase without steps).
  std::vector<std::optional<FindingPrediction>> findings;
  std::vector<PhasePrediction> phases;
};

// `code`: --user-code, --library-code, for the statement of a read-back
// (statement_span.h) as the report names its line.
// operations: each finding's operation, by index (sites/sync_operation.h),
// which picks its fix (finding_fixes.h); missing ones are kUnknown.
// known_sites: each finding's known library site, by index, or nullptr
// (missing ones too): an entry's replay overrides the operation's fix.
Predictions predict_findings(const ProcessTrace& trace, const Analysis& analysis, const CodeOwnershipOptions& code = {},
                             const std::vector<Operation>& operations = {},
                             const std::vector<const KnownSite*>& known_sites = {});

}  // namespace syncscope::whatif
