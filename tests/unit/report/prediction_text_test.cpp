// The text report's predicted-saving lines (report/prediction_text.h), and
// the GPU-pace words beside a phase's step (report/gpu_timeline_text.h).
#include "report/prediction_text.h"

#include <gtest/gtest.h>

#include "report/gpu_timeline_text.h"
#include "trace/process_info_keys.h"

namespace syncscope {
namespace {

// With no timeline asked for, as measure_advice words it (tested below).
const char* const kAdvice = "--gpu-timeline measures it";

std::string saving_text(const Finding& f, double step_ns) { return predicted_saving_text(f, step_ns, kAdvice); }
std::string all_fixed(const AllFixedPrediction& p) { return all_fixed_text(p, kAdvice); }

Finding predicted(double low, double high, bool measured) {
  Finding f;
  f.predicted = true;
  f.prediction_measured = measured;
  f.predicted_fix = "read-later";
  f.saving_ns_per_step_low = low;
  f.saving_ns_per_step_high = high;
  return f;
}

TEST(PredictionText, MeasuredIsOneFigureWithItsShareOfTheStep) {
  EXPECT_EQ(saving_text(predicted(410000, 410000, true), 2400000),
            "fixing it (read-later) saves 410.0 µs a step (17%), measured");
}

TEST(PredictionText, FromHostTimingIsAnInterval) {
  EXPECT_EQ(saving_text(predicted(310000, 410000, false), 2400000),
            "fixing it (read-later) saves 310.0 µs to 410.0 µs a step (13% to 17%), estimated from host timing "
            "(--gpu-timeline measures it)");
}

TEST(PredictionText, AnIntervalWithinOnePercentGivesOneShare) {
  EXPECT_EQ(saving_text(predicted(399800, 409800, false), 2020000),
            "fixing it (read-later) saves 399.8 µs to 409.8 µs a step (20%), estimated from host timing "
            "(--gpu-timeline measures it)");
}

TEST(PredictionText, SmallAndNoSavingsSaySo) {
  EXPECT_EQ(saving_text(predicted(0, 77, false), 170000),
            "fixing it (read-later) saves up to 77 ns a step (under 1%), estimated from host timing (--gpu-timeline "
            "measures it)");
  // Under 1% the µs stay: they rank findings whose shares read alike.
  EXPECT_EQ(saving_text(predicted(97000, 97000, true), 13380000),
            "fixing it (read-later) saves 97.0 µs a step (under 1%), measured");
  EXPECT_EQ(saving_text(predicted(20000, 40000, false), 13380000),
            "fixing it (read-later) saves 20.0 µs to 40.0 µs a step (under 1%), estimated from host timing "
            "(--gpu-timeline measures it)");
  EXPECT_EQ(saving_text(predicted(-5, 0, true), 170000), "fixing it (read-later) saves no step time, measured");
  EXPECT_EQ(saving_text(Finding{}, 1000), "") << "no prediction, no line";
}

TEST(PredictionText, AllFixed) {
  AllFixedPrediction all;
  all.measured = true;
  all.recorded_step_ns = 2480000;
  all.replayed_step_ns = 2480000;
  all.step_ns_without_low = all.step_ns_without_high = 2090000;
  all.saving_ns_low = all.saving_ns_high = 390000;
  EXPECT_EQ(all_fixed(all), "fixing every steady finding saves 390.0 µs a step (16%), measured");
}

// The replay fits but is off the recording (8% here, as overlap_copies.py's
// was on an H200): the saving is the replay's own difference, as each
// finding's, not the recorded step minus the replay without the fixes,
// which would add the replay's error to it (here: a negative saving).
TEST(PredictionText, AllFixedSavesWhatTheReplaySaysNotTheRecordedStepMinusTheReplay) {
  AllFixedPrediction all;
  all.measured = true;
  all.recorded_step_ns = 7418000;
  all.replayed_step_ns = 8011000;
  all.step_ns_without_low = all.step_ns_without_high = 7704000;
  all.saving_ns_low = all.saving_ns_high = 307000;
  EXPECT_EQ(all_fixed(all), "fixing every steady finding saves 307.0 µs a step (4%), measured");
}

// Dropping an allocator call saves at least what the replay says
// (whatif::saving_is_a_floor): the line says so, for the finding and for
// all fixed.
// The text of `f` estimated from host timing instead: 310 to 410 µs of a
// 2.4 ms step.
std::string from_host_timing(Finding f) {
  f.prediction_measured = false;
  f.saving_ns_per_step_low = 310000;
  f.saving_ns_per_step_high = 410000;
  return saving_text(f, 2400000);
}

TEST(PredictionText, AFloorSaysAtLeast) {
  Finding f = predicted(113000, 113000, true);
  f.predicted_fix = "drop-call";
  f.prediction_floor = true;
  EXPECT_EQ(saving_text(f, 1250000), "fixing it (drop-call) saves at least 113.0 µs a step (9%), measured");
  EXPECT_EQ(saving_text(predicted(0, 77, true), 170000).find("at least"), std::string::npos);
  f.saving_ns_per_step_low = f.saving_ns_per_step_high = 1000;
  EXPECT_EQ(saving_text(f, 1250000), "fixing it (drop-call) saves at least 1.0 µs a step (under 1%), measured");
  EXPECT_EQ(from_host_timing(f),
            "fixing it (drop-call) saves 310.0 µs to 410.0 µs a step (13% to 17%) or more, estimated from host "
            "timing (--gpu-timeline measures it)");
  AllFixedPrediction all;
  all.measured = true;
  all.floor = true;
  all.recorded_step_ns = 1250000;
  all.replayed_step_ns = 1250000;
  all.step_ns_without_low = all.step_ns_without_high = 1067000;
  all.saving_ns_low = all.saving_ns_high = 183000;
  EXPECT_EQ(all_fixed(all), "fixing every steady finding saves at least 183.0 µs a step (15%), measured");
}

// GradScaler's read under bf16: the saving is mostly the scaler's other
// operations, which the fix's words name, or a 198 µs saving of a read that
// blocked 17 µs reads as a mistake.
TEST(PredictionText, ASettingsOtherOperationsAreNamedWithTheFix) {
  Finding f = predicted(198400, 198400, true);
  f.predicted_fix = "drop-read-back";
  f.prediction_floor = true;
  f.predicted_dropped_operations = 7;
  EXPECT_EQ(saving_text(f, 4320000),
            "fixing it (drop-read-back with the setting's 7 other operations) saves at least 198.4 µs a step (5%), "
            "measured");
  f.predicted_dropped_operations = 0;
  EXPECT_EQ(predicted_fix_words(f), "drop-read-back");
}

TEST(PredictionText, ACeilingSaysAtMost) {
  Finding f = predicted(113000, 113000, true);
  f.predicted_fix = "side-stream";
  f.prediction_ceiling = true;
  EXPECT_EQ(saving_text(f, 1250000), "fixing it (side-stream) saves at most 113.0 µs a step (9%), measured");
  f.saving_ns_per_step_low = f.saving_ns_per_step_high = 0;
  EXPECT_EQ(saving_text(f, 1250000),
            "fixing it (side-stream) saves no step time as replayed, and its own host work may lengthen the step, "
            "measured")
      << "on a host-bound loop a side stream may cost";
  f.saving_ns_per_step_low = f.saving_ns_per_step_high = 5000;
  EXPECT_EQ(saving_text(f, 1250000),
            "fixing it (side-stream) saves at most 5.0 µs a step (under 1%), and its own host work may lengthen "
            "the step, measured");
  EXPECT_EQ(from_host_timing(f),
            "fixing it (side-stream) saves 310.0 µs to 410.0 µs a step (13% to 17%) or less, estimated from host "
            "timing (--gpu-timeline measures it)");
}

// A fix whose own host work outweighs the wait it removes says what it
// costs, from 1% of the step on; below that it saves "no step time".
TEST(PredictionText, AFixThatCostsStepTimeSaysHowMuch) {
  Finding f = predicted(-95000, -95000, true);
  f.predicted_fix = "side-stream";
  f.prediction_ceiling = true;
  EXPECT_EQ(saving_text(f, 1250000),
            "fixing it (side-stream) saves no step time: as replayed, its own host work adds at least 95.0 µs a "
            "step (8%), measured");
  f.prediction_ceiling = false;
  EXPECT_EQ(saving_text(f, 1250000),
            "fixing it (side-stream) saves no step time: as replayed, its own host work adds 95.0 µs a step (8%), "
            "measured");
  f.saving_ns_per_step_low = f.saving_ns_per_step_high = -5000;
  EXPECT_EQ(saving_text(f, 1250000), "fixing it (side-stream) saves no step time, measured") << "under 1%";
  f.prediction_measured = false;
  f.saving_ns_per_step_low = -125000;
  f.saving_ns_per_step_high = -25000;
  EXPECT_EQ(saving_text(f, 1250000),
            "fixing it (side-stream) saves no step time: as replayed, its own host work adds 25.0 µs to 125.0 µs "
            "a step (2% to 10%), estimated from host timing (--gpu-timeline measures it)");
}

// "All fixed" is a floor or a ceiling only where its parts all lean one way.
TEST(PredictionText, AllFixedIsBoundedOnlyWhereNoPartPullsTheOtherWay) {
  SavingBounds both;
  both.add(true, false);
  both.add(false, false);
  EXPECT_TRUE(both.floor());
  both.add(false, true);
  EXPECT_FALSE(both.floor());
  EXPECT_FALSE(both.ceiling());
  SavingBounds at_most;
  at_most.add(false, true);
  at_most.add(false, false);
  EXPECT_TRUE(at_most.ceiling());
  AllFixedPrediction all;
  all.measured = true;
  all.ceiling = at_most.ceiling();
  all.recorded_step_ns = all.replayed_step_ns = 1250000;
  all.step_ns_without_low = all.step_ns_without_high = 1067000;
  all.saving_ns_low = all.saving_ns_high = 183000;
  EXPECT_EQ(all_fixed(all), "fixing every steady finding saves at most 183.0 µs a step (15%), measured");
}

// A replay too far off the recording (whatif::kMaxReplayError): no saving,
// and why.
TEST(PredictionText, AReplayThatDoesNotFitSaysSoInsteadOfASaving) {
  AllFixedPrediction all;
  all.recorded_step_ns = 1285000;
  all.replayed_step_ns = 2297000;
  all.step_ns_without_low = all.step_ns_without_high = 2296000;
  all.fits = false;
  EXPECT_EQ(all_fixed(all),
            "no prediction of what fixing saves: the model replays the recorded steps at 2.30 ms a step against "
            "1.28 ms recorded (+79%), too far off to judge a fix (docs/what-if.md)");
}

}  // namespace
}  // namespace syncscope

namespace syncscope {
namespace {

// The steps at the GPU's pace (detectors/gpu_pace.h), as both reports word
// them after a phase's step time: said from kGpuPaceWorthSaying on.
TEST(GpuPaceText, SaidWhereTheHostRanAheadOnly) {
  PhaseInfo phase;
  phase.step_ns = 3590000;
  phase.gpu_paced_step_ns = 8060000;
  EXPECT_EQ(gpu_pace_text(phase), "8.06 ms as the GPU finished them (the host ran ahead)");
  phase.gpu_paced_step_ns = 3700000;  // 3% longer: the phase's ends
  EXPECT_EQ(gpu_pace_text(phase), "");
  phase.gpu_paced_step_ns = 0;  // not known
  EXPECT_EQ(gpu_pace_text(phase), "");
}

// Why a report has no GPU figures although the timeline was asked for.
TEST(GpuTimelineAbsence, SaysWhetherSampledWindowsOpenedAndHeldNothing) {
  ProcessTrace trace;
  trace.process_info = {{info_key::kGpuTimeline, "on"}, {info_key::kGpuTimelineSampling, "1000/10000"}};
  EXPECT_EQ(gpu_timeline_absence(trace, true), "");
  EXPECT_NE(gpu_timeline_absence(trace, false).find("no window opened before recording ended"), std::string::npos);
  trace.gpu_windows = {{2000000000, 3000000000}};
  EXPECT_EQ(gpu_timeline_absence(trace, false),
            "timeline sampled (1 s every 10 s), but its 1 window held no kernels, copies or memsets: the run's GPU "
            "work fell between them; --gpu-timeline=full measures every step");
  trace.process_info = {{info_key::kGpuTimeline, "on"}, {info_key::kGpuTimelineSampling, "full"}};
  EXPECT_EQ(gpu_timeline_absence(trace, false), "timeline on, but it holds no kernels, copies or memsets");
}

// Why no step of a phase was timed: steps longer than a window never fit
// one; shorter ones ran between the windows (Lightning's 4.9 ms steps, 2 s
// of them, after the first window had closed).
TEST(GpuNoTimedStep, SaysWhichOfTheTwoReasonsHolds) {
  ProcessTrace trace;
  trace.process_info = {{info_key::kGpuTimeline, "on"}, {info_key::kGpuTimelineSampling, "1000/10000"}};
  PhaseInfo phase;
  phase.name = "train";
  phase.step_ns = 4.88e6;
  EXPECT_EQ(gpu_no_timed_step_text(trace, phase),
            "no train step fell inside a sampling window (1 s every 10 s): its steps ran between the windows (a "
            "short run); --gpu-timeline=full measures every step, --gpu-timeline=WINDOW/PERIOD sets the windows");
  phase.step_ns = 1.5e9;
  EXPECT_NE(gpu_no_timed_step_text(trace, phase).find(": its steps (1.50 s) are longer than a window;"),
            std::string::npos)
      << gpu_no_timed_step_text(trace, phase);
}

// How an estimate from host timing gets measured depends on what the run
// asked for: a sampled timeline that missed the steps (a short run) needs
// the full one, and one that could not be recorded says why.
TEST(MeasureAdvice, FollowsTheTimelineTheRunAskedFor) {
  ProcessTrace trace;
  EXPECT_EQ(measure_advice(trace), "--gpu-timeline measures it");
  trace.process_info = {{info_key::kGpuTimeline, "off: not asked for (syncscope run --gpu-timeline)"}};
  EXPECT_EQ(measure_advice(trace), "--gpu-timeline measures it");
  trace.process_info = {{info_key::kGpuTimeline, "on"}, {info_key::kGpuTimelineSampling, "1000/10000"}};
  EXPECT_EQ(measure_advice(trace), "--gpu-timeline=full measures it");
  trace.process_info = {{info_key::kGpuTimeline, "off: taken by another tool (a profiler holds CUPTI)"}};
  EXPECT_EQ(measure_advice(trace), "the GPU timeline was off: taken by another tool (a profiler holds CUPTI)");
  Finding f = predicted(0, 77, false);
  EXPECT_EQ(predicted_saving_text(f, 170000, measure_advice(trace)),
            "fixing it (read-later) saves up to 77 ns a step (under 1%), estimated from host timing (the GPU "
            "timeline was off: taken by another tool (a profiler holds CUPTI))");
}

}  // namespace
}  // namespace syncscope
