// A finding's prediction picks its statement's part by its fix
// (whatif/finding_predictions.h): every-n-steps the whole line, fixed-shape
// the line from its read-back on, compute-on-gpu the read-back alone. "All
// fixed" also fixes the findings of a phase that runs inside the phase's
// steps (an evaluation inside the training loop).
#include "whatif/finding_predictions.h"

#include <gtest/gtest.h>

#include "tests/unit/detectors/synthetic.h"

namespace syncscope::whatif {
namespace {

constexpr uint32_t kUserCode = 1, kMaskLine = 8, kMaskStack = 21;
constexpr uint64_t kUs = 1000;

// `positive = out[out > 0]` at train.py:8, as PyTorch runs it: 40 µs of
// dispatch and the comparison's launch before nonzero reads its count back,
// then 20 µs and the gather's launch, 30 µs more before line 9 begins. The
// rest of the step is 300 µs of host work and two launches.
ProcessTrace mask_loop(int steps) {
  syncscope::testing::Stream s;
  for (int step = 0; step < steps; ++step) {
    s.python_line(kUserCode, 7);
    s.launch(0xa);
    s.idle(150 * kUs);
    s.python_line(kUserCode, kMaskLine);
    s.idle(40 * kUs);
    s.launch(0xf);
    s.copy(ApiId::cudaMemcpyAsync, Direction::kDeviceToHost, HostMem::kPageable, 4, true, kMaskStack, 3 * kUs);
    s.call(ApiId::cudaStreamSynchronize, 5 * kUs, 0x100, kMaskStack);
    s.idle(20 * kUs);
    s.launch(0xc);
    s.idle(30 * kUs);
    s.python_line(kUserCode, 9);
    s.launch(0xe);
    s.idle(150 * kUs);
  }
  ProcessTrace trace;
  trace.events = s.events();
  trace.python_code[kUserCode] = PythonCode{"/home/u/train.py", "<module>", 1};
  trace.python_stacks[kMaskStack] = {{kUserCode, kMaskLine}};
  return trace;
}

struct Predicted {
  Fix fix = Fix::kDropSync;
  double saving_us = 0;
  bool floor = false;
};

// The index of the steady read-back at `stack`, or findings.size().
size_t steady_read_back(const Analysis& analysis, uint32_t stack) {
  size_t found = analysis.findings.size();
  for (size_t i = 0; i < analysis.findings.size(); ++i) {
    const Finding& f = analysis.findings[i];
    if (f.phase == Phase::kSteady && f.cause == Cause::kReadBack && f.stack_id == stack) found = i;
  }
  return found;
}

// The read-back's prediction with its operation given as `operation`.
Predicted predicted_as(const ProcessTrace& trace, const Analysis& analysis, Operation operation) {
  std::vector<Operation> operations(analysis.findings.size(), Operation::kUnknown);
  const size_t read_back = steady_read_back(analysis, kMaskStack);
  if (read_back == analysis.findings.size()) {
    ADD_FAILURE() << "no steady read-back at train.py:8";
    return {};
  }
  operations[read_back] = operation;
  const Predictions p = predict_findings(trace, analysis, {}, operations);
  if (!p.findings[read_back]) {
    ADD_FAILURE() << "the read-back is not predicted";
    return {};
  }
  const FindingPrediction& f = *p.findings[read_back];
  return {f.fix, (f.prediction.saving_low_ns + f.prediction.saving_high_ns) / 2 / kUs, f.floor};
}

TEST(FindingPredictions, EachFixTakesItsPartOfTheStatement) {
  const ProcessTrace trace = mask_loop(60);
  const Analysis analysis = analyze(trace);
  ASSERT_FALSE(analysis.phases.empty());
  const Predicted whole = predicted_as(trace, analysis, Operation::kItem);
  const Predicted from_read = predicted_as(trace, analysis, Operation::kNonzero);
  const Predicted read_alone = predicted_as(trace, analysis, Operation::kBool);
  EXPECT_EQ(whole.fix, Fix::kEveryNSteps);
  EXPECT_EQ(from_read.fix, Fix::kFixedShape);
  EXPECT_EQ(read_alone.fix, Fix::kComputeOnGpu);
  // The read-back alone: its copy and wait, a few µs.
  EXPECT_LT(read_alone.saving_us, 20);
  // From the read-back on: the read-back, the 20 µs, the gather's launch
  // and the 30 µs before line 9.
  EXPECT_GT(from_read.saving_us, read_alone.saving_us + 50);
  // The whole line also takes the 40 µs and the comparison's launch before
  // the read-back, which fixed-shape leaves for torch.where's own work.
  EXPECT_GT(whole.saving_us, from_read.saving_us + 40);
  EXPECT_LT(whole.saving_us, from_read.saving_us + 60);
  EXPECT_FALSE(whole.floor) << "line events bounded every execution";
  EXPECT_TRUE(from_read.floor) << "the gather's backward is not in the statement";
  EXPECT_FALSE(read_alone.floor);
}

// A training step (300 µs of host work and two launches) with an
// evaluation inside it: a launch, then its loss read back (copy and a
// 200 µs wait for the GPU) at kEvalStack.
constexpr uint32_t kEvalStack = 31;
ProcessTrace train_with_eval_inside(int steps) {
  syncscope::testing::Stream s;
  for (int step = 0; step < steps; ++step) {
    s.launch(0xa);
    s.idle(150 * kUs);
    s.launch(0xb);
    s.copy(ApiId::cudaMemcpyAsync, Direction::kDeviceToHost, HostMem::kPageable, 4, true, kEvalStack, 3 * kUs);
    s.call(ApiId::cudaStreamSynchronize, 200 * kUs, 0x100, kEvalStack);
    s.idle(150 * kUs);
  }
  ProcessTrace trace;
  trace.events = s.events();
  trace.python_code[kUserCode] = PythonCode{"/home/u/train.py", "evaluate", 1};
  trace.python_stacks[kEvalStack] = {{kUserCode, 30}};
  return trace;
}

TEST(FindingPredictions, AllFixedTakesTheFindingsOfAPhaseRunningInsideItsSteps) {
  const ProcessTrace trace = train_with_eval_inside(60);
  Analysis analysis = analyze(trace);
  ASSERT_FALSE(analysis.step_figures.empty());
  const int train = analysis.step_figures.front().span.phase_index;
  const size_t eval = steady_read_back(analysis, kEvalStack);
  ASSERT_LT(eval, analysis.findings.size()) << "the evaluation's read-back is a steady finding";
  ASSERT_EQ(analysis.findings[eval].phase_index, train);
  // What fixing it saves in the train steps while it is a train finding.
  const auto all_fixed_of = [&](const Predictions& p) -> const PhasePrediction* {
    for (const PhasePrediction& phase : p.phases) {
      if (phase.phase_index == train) return &phase;
    }
    return nullptr;
  };
  const Predictions as_train = predict_findings(trace, analysis);
  ASSERT_NE(all_fixed_of(as_train), nullptr);
  const Prediction before = all_fixed_of(as_train)->all_fixed;
  ASSERT_GT(before.saving_high_ns, 0);
  // The segmentation would make the evaluation a phase of its own (as on
  // transformer_lm.py, eval every 10 steps inside the loop): here it is made
  // one by hand, its steps each read-back's copy to the end of its wait,
  // inside the train steps, and the finding moved to it.
  const int eval_phase = train + 1;
  uint32_t step = 0;
  for (size_t i = 0; i + 1 < trace.events.size(); ++i) {
    const Event& copy = trace.events[i];
    if (copy.stack_id != kEvalStack || copy.api != static_cast<uint16_t>(ApiId::cudaMemcpyAsync)) continue;
    StepFigures figures;
    figures.span = StepSpan{static_cast<int16_t>(eval_phase), step++, copy.start_ns, trace.events[i + 1].end_ns};
    analysis.step_figures.push_back(figures);
  }
  analysis.findings[eval].phase_index = eval_phase;
  const Predictions p = predict_findings(trace, analysis);
  ASSERT_TRUE(p.findings[eval]) << "predicted in its own phase";
  const PhasePrediction* train_fixed = all_fixed_of(p);
  ASSERT_NE(train_fixed, nullptr) << "the train steps have an all-fixed, though none of their own findings is left";
  EXPECT_EQ(train_fixed->findings, std::vector<size_t>{eval});
  // Fixing the evaluation's read-back saves in each train step it
  // interrupts what it saved there as a train finding.
  EXPECT_EQ(train_fixed->all_fixed.saving_low_ns, before.saving_low_ns);
  EXPECT_EQ(train_fixed->all_fixed.saving_high_ns, before.saving_high_ns);
}

}  // namespace
}  // namespace syncscope::whatif
