// `syncscope report DIR`: read every trace in a directory and print the report.
#pragma once

#include <vector>
#include <string>

#include "report/text_report.h"
#include "tools/output_formats.h"

namespace syncscope {

// Exit status: 0 printed; 1 every trace was unreadable or an output could not
// be written; 2 no trace / no directory.
int report_directory(const std::string& dir, const TextReportOptions& options,
                     const std::vector<OutputFormat>& formats);

}  // namespace syncscope
