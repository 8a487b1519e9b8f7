// The findings as JSON, schema "syncscope/findings/v1" (docs/findings-schema.md).
#pragma once

#include <nlohmann/json.hpp>

#include "report/report_model.h"

namespace syncscope {

inline constexpr const char* kFindingsSchema = "syncscope/findings/v1";

nlohmann::json findings_json(const Report& report);

}  // namespace syncscope
