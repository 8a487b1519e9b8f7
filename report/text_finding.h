// One steady-state finding in the terminal report, laid out to fit a
// screen: the user line first (category, file:line, source text), the
// figures, the thread it ran on when that had no Python, a few Python
// frames, the native frames folded (report/frame_folding.h), the hint.
#pragma once

#include <ostream>

#include "report/report_model.h"
#include "report/text_report.h"

namespace syncscope {

void render_finding_block(const ProcessReport& process, const ReportedFinding& finding, int rank,
                          const TextReportOptions& options, std::ostream& out);

}  // namespace syncscope
