// `syncscope diff BASE.json NEW.json`: which findings a change added, which
// it fixed, and which changed in size, matched by identity
// (policy/baseline.h). Suppressed findings are left out of both sides, and
// only steady-state findings are compared unless include_warmup.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "detectors/finding.h"
#include "policy/baseline.h"

namespace syncscope {

// One site's findings in one document, summed over its processes.
struct DiffSide {
  uint64_t count = 0;
  double per_step = 0;                  // the largest over processes
  double host_blocked_us_per_step = 0;  // the largest over processes
  std::string line;                     // "train.py:42" where it was seen
  std::string api_sequence;
  size_t processes = 0;
};

struct DiffEntry {
  FindingIdentity id;
  DiffSide base, now;  // base empty for added, now empty for fixed
  std::string change;  // for changed: "per step 1.00 -> 3.00"
};

struct FindingsDiff {
  std::vector<DiffEntry> added, fixed, changed, unchanged;
};

// Both documents must have passed check_findings_document().
FindingsDiff diff_findings(const nlohmann::json& base, const nlohmann::json& now, bool include_warmup);

}  // namespace syncscope
