// The findings as JUnit XML: a testsuite per process, a testcase per
// category, failing when the category fails (report/finding_text.h).
#pragma once

#include <string>

#include "report/report_model.h"

namespace syncscope {

std::string findings_junit(const Report& report);

}  // namespace syncscope
