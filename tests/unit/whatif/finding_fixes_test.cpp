// The fix each finding's prediction assumes.
#include "whatif/finding_fixes.h"

#include <gtest/gtest.h>

#include "sites/known_sites.h"

namespace syncscope::whatif {
namespace {

Finding with(Category category, Cause cause) {
  Finding f;
  f.category = category;
  f.cause = cause;
  return f;
}

TEST(FindingFixes, EachCauseHasTheFixItsHintNames) {
  EXPECT_EQ(fix_for(with(Category::kHiddenSync, Cause::kReadBack)), Fix::kEveryNSteps);
  EXPECT_EQ(fix_for(with(Category::kHiddenSync, Cause::kCopyThenSync)), Fix::kReadLater);
  EXPECT_EQ(fix_for(with(Category::kHiddenSync, Cause::kExplicit)), Fix::kDropSync);
  EXPECT_EQ(fix_for(with(Category::kHiddenSync, Cause::kImplicitFree)), Fix::kDropCall);
  EXPECT_EQ(fix_for(with(Category::kPageableCopy, Cause::kAsyncRequested)), Fix::kPinnedAsync);
  EXPECT_EQ(fix_for(with(Category::kAllocatorChurn, Cause::kFreeBurst)), Fix::kDropCall);
  EXPECT_EQ(fix_for(with(Category::kDefaultStream, Cause::kCopyOnComputeStream)), Fix::kSideStream);
}

// A read-back's fix is the first its operation's hint gives: a logged or
// printed value is read every N steps (its statement goes), a tensor used as
// a bool or a mask's count is computed on the GPU (the line stays, without
// its read-back). On an H200, `if loss > 10.0: spikes += 1` predicted as
// leaving the step saved 6.7% of it; its twin counting on the GPU saved
// 0.7% to 4.7% in five device calls.
TEST(FindingFixes, AReadBacksOperationPicksItsFix) {
  const Finding read_back = with(Category::kHiddenSync, Cause::kReadBack);
  for (Operation op : {Operation::kUnknown, Operation::kItem, Operation::kFormat, Operation::kCopyToHost}) {
    EXPECT_EQ(fix_for(read_back, op), Fix::kEveryNSteps) << operation_name(op);
  }
  EXPECT_EQ(fix_for(read_back, Operation::kBool), Fix::kComputeOnGpu);
  EXPECT_EQ(fix_for(read_back, Operation::kNonzero), Fix::kFixedShape);
  EXPECT_STREQ(fix_name(Fix::kFixedShape), "fixed-shape");
  EXPECT_TRUE(removes_work_between_its_calls(Fix::kFixedShape));
  EXPECT_EQ(statement_part(Fix::kFixedShape), StatementPart::kFromItsReadBack);
  EXPECT_STREQ(fix_name(Fix::kComputeOnGpu), "compute-on-gpu");
  EXPECT_EQ(statement_part(Fix::kComputeOnGpu), StatementPart::kNone);
  EXPECT_TRUE(removes_work_between_its_calls(Fix::kComputeOnGpu));
  EXPECT_FALSE(removes_work_between_its_calls(Fix::kReadLater));
  // Other causes keep their fix whatever the operation.
  EXPECT_EQ(fix_for(with(Category::kHiddenSync, Cause::kExplicit), Operation::kBool), Fix::kDropSync);
}

// A known library site's entry may name the fix its hint's setting makes
// (sites/known_sites.json's "replay"): Trainer's nan/inf check turned off
// goes whole (drop-statement), where `if t:` alone would be decided on the
// GPU; GradScaler's found_inf under bf16 is no longer read back
// (drop-read-back), where `.item()` alone would be read every N steps. An
// entry without one, or naming no fix, keeps the operation's fix.
TEST(FindingFixes, AKnownSitesSettingPicksTheFix) {
  const Finding read_back = with(Category::kHiddenSync, Cause::kReadBack);
  KnownSite site;
  site.replay = "drop-statement";
  EXPECT_EQ(fix_for(read_back, Operation::kBool, &site), Fix::kDropStatement);
  site.replay = "drop-read-back";
  EXPECT_EQ(fix_for(read_back, Operation::kItem, &site), Fix::kDropReadBack);
  site.replay = "";
  EXPECT_EQ(fix_for(read_back, Operation::kBool, &site), Fix::kComputeOnGpu);
  site.replay = "no-such-fix";
  EXPECT_EQ(fix_for(read_back, Operation::kItem, &site), Fix::kEveryNSteps);
  EXPECT_EQ(fix_for(read_back, Operation::kItem, nullptr), Fix::kEveryNSteps);
  // drop-read-back: the read-back and the work between its calls, no more
  // of the statement; a floor, since the setting may remove more.
  EXPECT_STREQ(fix_name(Fix::kDropReadBack), "drop-read-back");
  EXPECT_EQ(statement_part(Fix::kDropReadBack), StatementPart::kNone);
  EXPECT_TRUE(removes_work_between_its_calls(Fix::kDropReadBack));
  EXPECT_TRUE(saving_is_a_floor(Fix::kDropReadBack));
  EXPECT_FALSE(saving_is_a_ceiling(Fix::kDropReadBack));
}

TEST(FindingFixes, EveryFixIsFoundByItsName) {
  for (int i = 0; i <= static_cast<int>(Fix::kDropReadBack); ++i) {
    const Fix fix = static_cast<Fix>(i);
    EXPECT_EQ(fix_from_name(fix_name(fix)), fix) << fix_name(fix);
  }
  EXPECT_EQ(fix_from_name(""), std::nullopt);
  EXPECT_EQ(fix_from_name("?"), std::nullopt);
}

// The shipped table's replays name fixes: a misspelt one would silently
// fall back to the operation's fix.
TEST(FindingFixes, TheShippedKnownSitesReplayFixesThatExist) {
  ASSERT_EQ(known_sites_error(), "");
  size_t with_replay = 0;
  for (const KnownSite& site : known_sites()) {
    if (site.replay.empty()) continue;
    ++with_replay;
    EXPECT_TRUE(fix_from_name(site.replay).has_value()) << site.id << ": " << site.replay;
  }
  EXPECT_GT(with_replay, 0u);
}

// Lightning's epoch mean (self.log(..., on_step=False, on_epoch=True)) does
// not remove its metric's reads and add nothing, as reading every N steps
// would: Lightning 2.6's _ResultMetric.update then accumulates the value on
// the GPU each step (two launches more a step than the per-step path, whose
// metric was read twice a step). Replayed as the value kept on the GPU: the
// reads go, one launch in each one's place. Read every N steps, its fixed
// twin measured 2.5 to 2.9% slower than the broken one on an H200, pinned,
// against a predicted 1.0 to 1.4% saving.
TEST(FindingFixes, LightningsEpochMeanKeepsTheMetricOnTheGpu) {
  const KnownSite* metric = nullptr;
  for (const KnownSite& site : known_sites()) {
    if (site.id == "lightning-metric-to-item") metric = &site;
  }
  ASSERT_NE(metric, nullptr);
  EXPECT_EQ(fix_for(with(Category::kHiddenSync, Cause::kReadBack), Operation::kItem, metric), Fix::kComputeOnGpu);
}

// x[:, [-1]] makes two findings (the pageable copy of the list's tensor and
// its wait): both are fixed by a slice, which takes the statement's work
// with it. On an H200 list_index.py's twin saved 7.7% and 9.9% of a step
// in two sessions, where dropping the waits alone predicted 0.6%.
TEST(FindingFixes, AListAsAnIndexBecomesASliceWhicheverFindingNamesIt) {
  EXPECT_EQ(fix_for(with(Category::kPageableCopy, Cause::kSynchronous), Operation::kListIndex), Fix::kDropStatement);
  EXPECT_EQ(fix_for(with(Category::kHiddenSync, Cause::kCopyThenSync), Operation::kListIndex), Fix::kDropStatement);
  EXPECT_STREQ(fix_name(Fix::kDropStatement), "drop-statement");
  EXPECT_EQ(statement_part(Fix::kDropStatement), StatementPart::kWhole);
  EXPECT_EQ(statement_part(Fix::kEveryNSteps), StatementPart::kWhole);
  EXPECT_EQ(statement_part(Fix::kReadLater), StatementPart::kNone);
}

TEST(FindingFixes, FixesThatRemoveUnseenHostWorkSaveAtLeastTheirPrediction) {
  EXPECT_TRUE(saving_is_a_floor(Fix::kDropCall));
  EXPECT_TRUE(saving_is_a_floor(Fix::kEveryNSteps));
  EXPECT_TRUE(saving_is_a_floor(Fix::kDropStatement));
  EXPECT_TRUE(saving_is_a_floor(Fix::kFixedShape)) << "the gather's backward goes too";
  for (Fix fix : {Fix::kReadLater, Fix::kDropSync, Fix::kPinnedAsync, Fix::kSideStream, Fix::kComputeOnGpu}) {
    EXPECT_FALSE(saving_is_a_floor(fix)) << fix_name(fix);
  }
}

// A side stream adds host work the recording does not hold (the stream
// switch, wait_stream's event, record_stream): on an H200 its twin measured
// 5 to 16% slower where the replay said 0%.
TEST(FindingFixes, FixesThatAddUnseenHostWorkSaveAtMostTheirPrediction) {
  EXPECT_TRUE(saving_is_a_ceiling(Fix::kSideStream));
  for (Fix fix : {Fix::kReadLater, Fix::kDropSync, Fix::kPinnedAsync, Fix::kDropCall, Fix::kEveryNSteps,
                  Fix::kDropStatement, Fix::kComputeOnGpu, Fix::kFixedShape, Fix::kDropReadBack}) {
    EXPECT_FALSE(saving_is_a_ceiling(fix)) << fix_name(fix);
    EXPECT_FALSE(saving_is_a_ceiling(fix) && saving_is_a_floor(fix)) << "never both: " << fix_name(fix);
  }
}

TEST(FindingFixes, EveryCauseIsModelled) {
  for (int c = static_cast<int>(Cause::kReadBack); c <= static_cast<int>(Cause::kLegacyStream); ++c) {
    EXPECT_TRUE(fix_for(with(Category::kHiddenSync, static_cast<Cause>(c))).has_value())
        << cause_name(static_cast<Cause>(c));
  }
}

// Pinning a pageable batch with DataLoader's workers also takes the batch
// off the workers' queue on the pin-memory thread: the replay's saving is
// a floor there, and only there (a copy to the host, or one already
// pinned, moves nothing).
TEST(FindingFixes, APageableBatchCopysSavingIsAFloor) {
  EXPECT_TRUE(moves_loading_off_the_thread(Fix::kPinnedAsync, Operation::kCopyToDevicePageable));
  EXPECT_FALSE(moves_loading_off_the_thread(Fix::kPinnedAsync, Operation::kCopyToHost));
  EXPECT_FALSE(moves_loading_off_the_thread(Fix::kPinnedAsync, Operation::kCopyToDevicePinned));
  EXPECT_FALSE(moves_loading_off_the_thread(Fix::kSideStream, Operation::kCopyToDevicePageable));
  EXPECT_FALSE(moves_loading_off_the_thread(Fix::kPinnedAsync, Operation::kUnknown));
}

}  // namespace
}  // namespace syncscope::whatif
