// The findings as JSON, schema "syncscope/findings/v1" (docs/findings-schema.md).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "detectors/analysis.h"
#include "trace/reader.h"

namespace syncscope {

inline constexpr const char* kFindingsSchema = "syncscope/findings/v1";

nlohmann::json findings_json(const std::vector<ProcessTrace>& traces, const StepOptions& options);

}  // namespace syncscope
