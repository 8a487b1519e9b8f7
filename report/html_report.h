// The report as one self-contained HTML page (--format html=FILE;
// docs/pictures.md): per process a header (command, real or simulated GPU,
// phases and steps, host time blocked per step, GPU busy share), a bar per
// step splitting it into GPU busy and GPU idle by cause (host blocked time
// per step without a GPU timeline), the ranked findings, and device memory
// over time. No script, font, stylesheet or image is fetched: the page opens
// from a CI artifact or an e-mail as it is.
#pragma once

#include <string>

#include "report/report_model.h"

namespace syncscope {

std::string html_report(const Report& report);

}  // namespace syncscope
