// Finding identity across runs, and baselines.
//
// A finding is identified by its category and its site: the user frame's
// file name (without directory, so checkouts in different places match),
// function and source text. The line number is used only when the source
// text is unknown in either run, so a finding survives edits above it that
// shift its line as long as its function and line text are unchanged.
//
// A baseline is a findings JSON file (`--format json=FILE`, schema
// syncscope/findings/v1) from an earlier run; findings whose identity is in
// it are "known" and do not count against the gate.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"

namespace syncscope {

struct FindingIdentity {
  std::string category;
  std::string file;      // base name; "" when the site is unknown
  std::string function;  // user function, or the API sequence when the site is unknown
  std::string source;    // whitespace-normalised line text; "" when unknown
  uint32_t line = 0;
};

FindingIdentity make_identity(const std::string& category, const std::string& file, uint32_t line,
                              const std::string& function, const std::string& source);
// From one finding object of a findings/v1 document.
FindingIdentity identity_from_json(const nlohmann::json& finding);
bool same_site(const FindingIdentity& a, const FindingIdentity& b);
// 16 hex digits, stable across runs and line shifts (SARIF partialFingerprints).
std::string fingerprint(const FindingIdentity& id);
// "hidden-sync at train.py:42 in step" for messages.
std::string describe(const FindingIdentity& id);

// Validates a findings/v1 document; the error names `source`.
absl::Status check_findings_document(const nlohmann::json& doc, const std::string& source);
// A findings/v1 document from its text (the fuzzer's entry point, and
// load_findings_document's); `source` names it in errors.
absl::StatusOr<nlohmann::json> parse_findings_document(std::string_view text, const std::string& source);
absl::StatusOr<nlohmann::json> load_findings_document(const std::string& path);

struct Baseline {
  std::string source;  // file it came from
  std::vector<FindingIdentity> findings;
  bool contains(const FindingIdentity& id) const;
};

absl::StatusOr<Baseline> baseline_from_json(const nlohmann::json& doc, const std::string& source);
absl::StatusOr<Baseline> load_baseline(const std::string& path);

}  // namespace syncscope
