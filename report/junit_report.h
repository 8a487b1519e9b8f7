// The findings as JUnit XML: a testsuite per process, a testcase per
// category, failing when the category fails (report/finding_text.h).
#pragma once

#include <string>

#include "report/report_model.h"

namespace syncscope {

std::string findings_junit(const Report& report);
// XML text with &, <, >, " and ' escaped and control characters dropped.
std::string xml_escape(const std::string& text);

}  // namespace syncscope
