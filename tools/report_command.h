// `syncscope report DIR`: read every trace in a directory and print the report.
#pragma once

#include <ostream>
#include <string>

#include "report/text_report.h"

namespace syncscope {

// Exit status: 0 printed; 1 every trace was unreadable; 2 no trace / no directory.
int report_directory(const std::string& dir, const TextReportOptions& options, std::ostream& out);

}  // namespace syncscope
