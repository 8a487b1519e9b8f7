// One process's findings in the HTML report: the steady-state ones ranked
// as the text report ranks them, each a card (the user line, its figures,
// how often per step, the GPU's loss, what fixing it saves, the hint, the native stack folded
// away in <details>); those of warm-up and teardown as one table.
#pragma once

#include <string>

#include "report/report_model.h"

namespace syncscope {

std::string findings_html(const ProcessReport& process, const Report& report);

}  // namespace syncscope
