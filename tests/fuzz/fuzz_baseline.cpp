// Findings JSON as `--baseline` and `syncscope diff` read it
// (policy/baseline.h, policy/findings_diff.h), on arbitrary text: a
// document or an error, never a crash; an accepted document makes a
// baseline that knows each of its findings, and diffs against itself and
// against an empty document without a crash (diff_findings reads every
// field of every finding: numbers of any size, strings, nulls).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "policy/baseline.h"
#include "policy/findings_diff.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace syncscope;
  absl::StatusOr<nlohmann::json> doc =
      parse_findings_document(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!doc.ok()) return 0;
  absl::StatusOr<Baseline> baseline = baseline_from_json(*doc, "fuzz.json");
  FUZZ_CHECK(baseline.ok());
  for (const FindingIdentity& id : baseline->findings) {
    FUZZ_CHECK(baseline->contains(id));
    FUZZ_CHECK(fingerprint(id).size() == 16);
    (void)describe(id);
  }
  const nlohmann::json empty = {{"schema", "syncscope/findings/v1"}, {"processes", nlohmann::json::array()}};
  for (bool warmup : {false, true}) {
    FindingsDiff same = diff_findings(*doc, *doc, warmup);
    FUZZ_CHECK(same.added.empty() && same.fixed.empty());
    FindingsDiff from_nothing = diff_findings(empty, *doc, warmup);
    FUZZ_CHECK(from_nothing.fixed.empty() && from_nothing.changed.empty() && from_nothing.unchanged.empty());
    FindingsDiff to_nothing = diff_findings(*doc, empty, warmup);
    FUZZ_CHECK(to_nothing.added.empty() && to_nothing.fixed.size() == from_nothing.added.size());
  }
  return 0;
}
