// The findings as GitHub Actions workflow commands: one `::error` (category
// failing the gate) or `::warning` annotation per counted finding, on the
// user's file and line, so a pull request shows them on the offending line.
#pragma once

#include <string>

#include "report/report_model.h"

namespace syncscope {

// `workspace`: the checkout root annotations are relative to
// ($GITHUB_WORKSPACE; "" = each process's working directory).
std::string findings_github(const Report& report, const std::string& workspace);
// Escaping of workflow command data (%, CR, LF) and of property values
// (additionally ':' and ',').
std::string github_escape_data(const std::string& text);
std::string github_escape_property(const std::string& text);

}  // namespace syncscope
