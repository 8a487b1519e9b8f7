// The findings as SARIF 2.1.0 (code scanning): one rule per category, one
// result per finding per process, located on the user's line.
#pragma once

#include <nlohmann/json.hpp>

#include "report/report_model.h"

namespace syncscope {

nlohmann::json findings_sarif(const Report& report);

}  // namespace syncscope
