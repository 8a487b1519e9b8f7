#include "policy/baseline.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "policy/findings_diff.h"

namespace syncscope {
namespace {

nlohmann::json finding(const std::string& category, const std::string& file, int line, const std::string& function,
                       const std::string& source, double per_step = 1, const std::string& phase = "steady") {
  return {{"category", category},
          {"phase", phase},
          {"api_sequence", "cudaStreamSynchronize"},
          {"count", 40},
          {"per_step", per_step},
          {"host_blocked_us_per_step", 50.0},
          {"suppressed", nullptr},
          {"user_frame",
           {{"file", file},
            {"line", line},
            {"function", function},
            {"source", source.empty() ? nlohmann::json(nullptr) : nlohmann::json(source)}}}};
}

nlohmann::json document(std::vector<nlohmann::json> findings) {
  return {{"schema", "syncscope/findings/v1"}, {"processes", {{{"findings", findings}}}}};
}

TEST(Identity, SurvivesLineShiftsAndCheckoutsElsewhere) {
  FindingIdentity a = identity_from_json(finding("hidden-sync", "/ci/run1/train.py", 42, "step", "loss.item()"));
  FindingIdentity b = identity_from_json(finding("hidden-sync", "/home/me/train.py", 57, "step", "  loss.item()"));
  EXPECT_TRUE(same_site(a, b));
  EXPECT_EQ(fingerprint(a), fingerprint(b));
  FindingIdentity edited = identity_from_json(finding("hidden-sync", "/ci/train.py", 42, "step", "loss.item() / n"));
  EXPECT_FALSE(same_site(a, edited));
  FindingIdentity other_category =
      identity_from_json(finding("pageable-copy", "/ci/train.py", 42, "step", "loss.item()"));
  EXPECT_FALSE(same_site(a, other_category));
  // Without source text the line decides.
  FindingIdentity no_source = identity_from_json(finding("hidden-sync", "/x/train.py", 42, "step", ""));
  EXPECT_TRUE(same_site(no_source, identity_from_json(finding("hidden-sync", "/y/train.py", 42, "step", ""))));
  EXPECT_FALSE(same_site(no_source, identity_from_json(finding("hidden-sync", "/y/train.py", 43, "step", ""))));
  EXPECT_EQ(describe(a), "hidden-sync at train.py:42 in step");
}

TEST(Baseline, ChecksTheDocument) {
  EXPECT_FALSE(baseline_from_json(nlohmann::json::object(), "x").ok());
  EXPECT_FALSE(
      baseline_from_json({{"schema", "syncscope/findings/v9"}, {"processes", nlohmann::json::array()}}, "x").ok());
  EXPECT_FALSE(baseline_from_json({{"schema", "syncscope/findings/v1"}}, "x").ok());
  auto b = baseline_from_json(document({finding("hidden-sync", "t.py", 3, "f", "x.item()")}), "base.json");
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->contains(make_identity("hidden-sync", "/else/t.py", 9, "f", "x.item()")));
  EXPECT_FALSE(b->contains(make_identity("hidden-sync", "/else/t.py", 3, "g", "x.item()")));
  EXPECT_FALSE(load_baseline("/nonexistent.json").ok());
}

// Issue 15: a directory, a FIFO or a device named as a findings file is
// refused with what it is, never read (a FIFO would block, /dev/zero never end).
TEST(Baseline, OnlyRegularFilesAreRead) {
  auto dir = load_baseline("/tmp");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("a directory, not a file"), std::string::npos) << dir.status();
  auto device = load_baseline("/dev/zero");
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.status().message().find("a device"), std::string::npos) << device.status();
}

// Issue 15: what passes the document check but holds no findings (numbers,
// nulls, a phase that is not a string) is diffed as a baseline reads it:
// ignored, never an abort.
TEST(Diff, FindingsThatAreNotObjectsAreIgnored) {
  nlohmann::json odd = document({1, nullptr, {{"phase", 7}, {"category", "hidden-sync"}}});
  nlohmann::json good = document({finding("hidden-sync", "t.py", 3, "f", "x.item()")});
  FindingsDiff d = diff_findings(odd, good, false);
  EXPECT_EQ(d.added.size(), 1u);
  FindingsDiff all = diff_findings(good, odd, true);
  EXPECT_EQ(all.fixed.size(), 1u);
}

TEST(Diff, AddedFixedChangedUnchanged) {
  nlohmann::json base = document({finding("hidden-sync", "t.py", 3, "f", "a.item()"),
                                  finding("allocator-churn", "t.py", 5, "f", "torch.cuda.empty_cache()"),
                                  finding("hidden-sync", "t.py", 7, "g", "b.item()", 1.0)});
  nlohmann::json now = document({finding("hidden-sync", "t.py", 4, "f", "a.item()"),       // moved a line: unchanged
                                 finding("hidden-sync", "t.py", 8, "g", "b.item()", 3.0),  // 3x as often
                                 finding("pageable-copy", "t.py", 9, "h", "x.cuda()"),
                                 finding("hidden-sync", "t.py", 1, "w", "c.item()", 1, "warmup")});
  FindingsDiff diff = diff_findings(base, now, false);
  ASSERT_EQ(diff.added.size(), 1u);
  EXPECT_EQ(diff.added[0].id.category, "pageable-copy");
  ASSERT_EQ(diff.fixed.size(), 1u);
  EXPECT_EQ(diff.fixed[0].id.category, "allocator-churn");
  ASSERT_EQ(diff.changed.size(), 1u);
  EXPECT_EQ(diff.changed[0].change, "per step 1.00 -> 3.00");
  EXPECT_EQ(diff.unchanged.size(), 1u);
  // Warm-up findings count only when asked.
  EXPECT_EQ(diff_findings(base, now, true).added.size(), 2u);
}

// Found by tests/fuzz/fuzz_baseline (corpus/baseline/count_negative.json):
// "count": -8 was cast from double to an unsigned integer, which is
// undefined. Counts out of range now clamp, and sums saturate.
TEST(Diff, CountsOutOfRangeClampInsteadOfAnUndefinedCast) {
  auto with_count = [](const std::string& function, nlohmann::json count) {
    nlohmann::json f = finding("hidden-sync", "t.py", 3, function, function + ".item()");
    f["count"] = std::move(count);
    return f;
  };
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  nlohmann::json now = document({with_count("negative", -8), with_count("huge", 1e300), with_count("fraction", 2.5),
                                 with_count("text", "12"), with_count("largest", kMax)});
  // The same site in two processes: kMax + 40 saturates.
  now["processes"].push_back({{"findings", {with_count("largest", 40)}}});
  FindingsDiff diff = diff_findings(document({}), now, false);
  std::map<std::string, uint64_t> counts;
  for (const DiffEntry& e : diff.added) counts[e.id.function] = e.now.count;
  EXPECT_EQ(counts, (std::map<std::string, uint64_t>{
                        {"negative", 0}, {"huge", kMax}, {"fraction", 2}, {"text", 0}, {"largest", kMax}}));
}

TEST(Diff, SuppressedFindingsAreLeftOut) {
  nlohmann::json suppressed = finding("hidden-sync", "t.py", 3, "f", "a.item()");
  suppressed["suppressed"] = {{"rule", "hidden-sync:f"}, {"source", "r:1"}};
  FindingsDiff diff = diff_findings(document({}), document({suppressed}), false);
  EXPECT_TRUE(diff.added.empty());
}

}  // namespace
}  // namespace syncscope
