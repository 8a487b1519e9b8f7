// The calls of one execution of a finding's statement: what every-n-steps removes.
#include "whatif/statement_span.h"

#include <gtest/gtest.h>

#include "tests/unit/detectors/synthetic.h"

namespace syncscope::whatif {
namespace {

constexpr uint32_t kUserCode = 1, kTensorStr = 2;
// print(loss) at train.py:7 reads back twice inside torch/_tensor_str.py;
// train.py:9 reads back on its own; a stack with PyTorch's frames alone.
constexpr uint32_t kPrintFirst = 21, kPrintSecond = 22, kOtherLine = 23, kFrameworkOnly = 24;

struct Recording {
  ProcessTrace trace;
  std::vector<std::pair<uint64_t, uint64_t>> steps;
};

void add_stacks(ProcessTrace* trace) {
  trace->python_code[kUserCode] = PythonCode{"/home/u/train.py", "<module>", 1};
  trace->python_code[kTensorStr] = PythonCode{"/venv/lib/python3.12/site-packages/torch/_tensor_str.py", "_str", 1};
  trace->python_stacks[kPrintFirst] = {{kTensorStr, 300}, {kUserCode, 7}};
  trace->python_stacks[kPrintSecond] = {{kTensorStr, 320}, {kUserCode, 7}};
  trace->python_stacks[kOtherLine] = {{kUserCode, 9}};
  trace->python_stacks[kFrameworkOnly] = {{kTensorStr, 300}};
}

void read_back(syncscope::testing::Stream& s, uint32_t stack) {
  s.copy(ApiId::cudaMemcpyAsync, Direction::kDeviceToHost, HostMem::kPageable, 4, true, stack, 3000, 0);
  s.call(ApiId::cudaStreamSynchronize, 5000, 0, stack);
}

// Each step: 2 launches, the print statement (a read-back, `between`
// launches, a read-back), a launch, the line-9 read-back. With
// `other_thread`, a launch of another thread inside the print.
Recording print_loop(int between, bool other_thread = false) {
  syncscope::testing::Stream s;
  Recording r;
  for (int step = 0; step < 3; ++step) {
    const uint64_t start = s.now();
    s.launch(0xa, 0);
    s.launch(0xb, 0);
    read_back(s, kPrintFirst);
    for (int k = 0; k < between; ++k) s.launch(0xc, 0);
    if (other_thread) s.launch(0xd, 0).tid = 2;
    read_back(s, kPrintSecond);
    s.launch(0xe, 0);
    read_back(s, kOtherLine);
    r.steps.emplace_back(start, s.now());
  }
  r.trace.events = s.events();
  add_stacks(&r.trace);
  return r;
}

// The ops marked, as a string of '.' and 'x' per step ("|" between steps).
std::string marked(const TraceProgram& p, const std::vector<bool>& span) {
  std::string out;
  for (size_t i = 0; i < span.size(); ++i) {
    if (i > 0 && p.program.ops[i].step != p.program.ops[i - 1].step) out += '|';
    out += span[i] ? 'x' : '.';
  }
  return out;
}

TEST(StatementSpan, RunsFromTheStatementsFirstCallToItsLast) {
  Recording r = print_loop(3);
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  const std::string expected = "..xxxxxxx...";
  EXPECT_EQ(marked(p, statement_span_ops(p, r.trace, 1, kPrintSecond)),
            expected + "|" + expected + "|" + expected)
      << "either read-back of print(loss) stands for the statement; the launches between them are its own";
  EXPECT_EQ(marked(p, statement_span_ops(p, r.trace, 1, kOtherLine)), "..........xx|..........xx|..........xx");
}

TEST(StatementSpan, ManyCallsWithoutAStackEndAnExecution) {
  // A forward pass between two runs of one line (gradient accumulation)
  // is not the line's.
  Recording r = print_loop(static_cast<int>(kMaxCallsInsideStatement) + 1);
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  const std::vector<bool> span = statement_span_ops(p, r.trace, 1, kPrintFirst);
  const std::string step = "..xx" + std::string(kMaxCallsInsideStatement + 1, '.') + "xx...";
  EXPECT_EQ(marked(p, span), step + "|" + step + "|" + step);
}

TEST(StatementSpan, AnotherThreadsCallEndsAnExecution) {
  Recording r = print_loop(1, true);
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  const std::string step = "..xx..xx...";
  EXPECT_EQ(marked(p, statement_span_ops(p, r.trace, 1, kPrintFirst)), step + "|" + step + "|" + step);
}

TEST(StatementSpan, NoneWithoutALineOutsidePyTorch) {
  Recording r = print_loop(1);
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  for (uint32_t stack : {kFrameworkOnly, 99u, 0u}) {
    const std::vector<bool> span = statement_span_ops(p, r.trace, 1, stack);
    EXPECT_EQ(std::count(span.begin(), span.end(), true), 0) << stack;
  }
}

}  // namespace
}  // namespace syncscope::whatif
