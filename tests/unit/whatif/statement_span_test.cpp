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

// A step's shape: 2 launches, the print statement (`head_launches` launches,
// a read-back, `between` launches, a read-back), a launch, the line-9
// read-back. With `other_thread`, a launch of another thread inside the
// print. In the first `watched_steps`, the line watch's events: line 5
// begins the step, line 7 begins `head_us` before print's first call, and
// line 9, `tail_us` after its last (the watch's budget is spent after).
struct LoopShape {
  int between = 1;
  bool other_thread = false;
  int head_launches = 0;
  uint64_t head_us = 0;
  uint64_t tail_us = 0;
  int watched_steps = 0;
};

Recording print_loop(const LoopShape& shape) {
  syncscope::testing::Stream s;
  Recording r;
  for (int step = 0; step < 3; ++step) {
    const bool watched = step < shape.watched_steps;
    const uint64_t start = s.now();
    if (watched) s.python_line(kUserCode, 5);
    s.launch(0xa, 0);
    s.launch(0xb, 0);
    if (watched) s.python_line(kUserCode, 7);
    s.idle(shape.head_us * 1000);
    for (int k = 0; k < shape.head_launches; ++k) s.launch(0xf, 0);
    read_back(s, kPrintFirst);
    for (int k = 0; k < shape.between; ++k) s.launch(0xc, 0);
    if (shape.other_thread) s.launch(0xd, 0).tid = 2;
    read_back(s, kPrintSecond);
    s.idle(shape.tail_us * 1000);
    if (watched) s.python_line(kUserCode, 9);
    s.launch(0xe, 0);
    read_back(s, kOtherLine);
    r.steps.emplace_back(start, s.now());
  }
  r.trace.events = s.events();
  add_stacks(&r.trace);
  return r;
}

Recording print_loop(int between, bool other_thread = false) {
  return print_loop(LoopShape{between, other_thread});
}

// Line 7 begins `head_us` before print's first read-back (with
// `head_launches` launches in between: its formatting kernels, or a forward
// pass), line 9 30 µs after its last.
Recording print_loop_with_lines(int head_launches, uint64_t head_us, int watched_steps = 3) {
  return print_loop(LoopShape{1, false, head_launches, head_us, 30, watched_steps});
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
  EXPECT_EQ(marked(p, statement_span(p, r.trace, 1, kPrintSecond).ops),
            expected + "|" + expected + "|" + expected)
      << "either read-back of print(loss) stands for the statement; the launches between them are its own";
  EXPECT_EQ(marked(p, statement_span(p, r.trace, 1, kOtherLine).ops), "..........xx|..........xx|..........xx");
}

TEST(StatementSpan, ManyCallsWithoutAStackEndAnExecution) {
  // A forward pass between two runs of one line (gradient accumulation)
  // is not the line's.
  Recording r = print_loop(static_cast<int>(kMaxCallsInsideStatement) + 1);
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  const std::vector<bool> span = statement_span(p, r.trace, 1, kPrintFirst).ops;
  const std::string step = "..xx" + std::string(kMaxCallsInsideStatement + 1, '.') + "xx...";
  EXPECT_EQ(marked(p, span), step + "|" + step + "|" + step);
}

TEST(StatementSpan, AnotherThreadsCallEndsAnExecution) {
  Recording r = print_loop(1, true);
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  const std::string step = "..xx..xx...";
  EXPECT_EQ(marked(p, statement_span(p, r.trace, 1, kPrintFirst).ops), step + "|" + step + "|" + step);
}

TEST(StatementSpan, LineEventsBoundAnExecutionFromTheLinesStartToTheNextLines) {
  Recording r = print_loop_with_lines(2, 40);
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  const StatementSpan span = statement_span(p, r.trace, 1, kPrintFirst);
  const std::string step = "..xxxxxxx...";  // the formatting launches are the statement's too
  EXPECT_EQ(marked(p, span.ops), step + "|" + step + "|" + step);
  EXPECT_EQ(span.executions_from_lines, 3u);
  for (size_t i = 0; i < p.program.ops.size(); ++i) {
    const size_t in_step = i % 12;
    if (in_step == 2) {  // the first formatting launch: the 40 µs since the line began
      EXPECT_GE(span.host_work_ns[i], 40000u);
      EXPECT_LT(span.host_work_ns[i], p.program.ops[i].host_before_ns) << "the work before the line began stays";
    } else if (in_step == 9) {  // line 9's launch: the 30 µs before line 9 began are print's
      EXPECT_GE(span.host_work_ns[i], 30000u);
      EXPECT_LT(span.host_work_ns[i], p.program.ops[i].host_before_ns) << "line 9's own work stays";
    } else if (in_step > 2 && in_step < 9) {
      EXPECT_EQ(span.host_work_ns[i], p.program.ops[i].host_before_ns) << i;
    } else {
      EXPECT_EQ(span.host_work_ns[i], 0u) << i;
    }
  }
}

// x[mask]: the mask and nonzero's count before the read-back stay (they
// stand for torch.where's own work); the read-back and what the count sized
// after it go, up to where the next line begins.
TEST(StatementSpan, FromTheFirstCallLeavesTheWorkBeforeItOut) {
  Recording r = print_loop_with_lines(2, 40);
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  const StatementSpan span = statement_span(p, r.trace, 1, kPrintFirst, {}, SpanStart::kFirstCall);
  const std::string step = "....xxxxx...";
  EXPECT_EQ(marked(p, span.ops), step + "|" + step + "|" + step);
  EXPECT_EQ(span.executions_from_lines, 3u);
  for (size_t i = 0; i < p.program.ops.size(); ++i) {
    const size_t in_step = i % 12;
    if (in_step == 9) {
      EXPECT_GE(span.host_work_ns[i], 30000u) << "the 30 µs after the last call, before line 9, go";
      EXPECT_LT(span.host_work_ns[i], p.program.ops[i].host_before_ns);
    } else if (in_step > 4 && in_step < 9) {
      EXPECT_EQ(span.host_work_ns[i], p.program.ops[i].host_before_ns) << i;
    } else {
      EXPECT_EQ(span.host_work_ns[i], 0u) << "the line's 40 µs and launches before the read-back stay: " << i;
    }
  }
  // Past the watch's budget the executions take the work after their last
  // call, and none before.
  Recording once = print_loop_with_lines(0, 40, 1);
  TraceProgram q = program_from_trace(once.trace, once.steps, {});
  const StatementSpan later = statement_span(q, once.trace, 1, kPrintFirst, {}, SpanStart::kFirstCall);
  EXPECT_EQ(marked(q, later.ops), "..xxxxx...|..xxxxx...|..xxxxx...");
  for (size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(later.host_work_ns[s * 10 + 2], 0u) << s;
    EXPECT_GE(later.host_work_ns[s * 10 + 7], 30000u) << s;
  }
}

TEST(StatementSpan, ExecutionsAfterTheWatchStoppedTakeTheWorkItSawBeforeAndAfter) {
  Recording r = print_loop_with_lines(0, 40, 1);
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  const StatementSpan span = statement_span(p, r.trace, 1, kPrintFirst);
  EXPECT_EQ(marked(p, span.ops), "..xxxxx...|..xxxxx...|..xxxxx...");
  EXPECT_EQ(span.executions, 3u);
  EXPECT_EQ(span.executions_from_lines, 3u);
  for (size_t step = 1; step < 3; ++step) {
    EXPECT_EQ(span.host_work_ns[step * 10 + 2], span.host_work_ns[2]) << "the work before the first call";
    EXPECT_EQ(span.host_work_ns[step * 10 + 7], span.host_work_ns[7]) << "the work after the last";
  }
  EXPECT_GE(span.host_work_ns[12], 40000u);
}

TEST(StatementSpan, ALineThatAlsoRunsManyCallsIsBoundByItsCallsAlone) {
  // `total += model(x).sum().item()`: the line runs a forward pass before
  // its read-back, which reading it every N steps would not remove.
  Recording r = print_loop_with_lines(static_cast<int>(kMaxCallsInsideStatement) + 1, 40);
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  const StatementSpan span = statement_span(p, r.trace, 1, kPrintFirst);
  const std::string step = ".." + std::string(kMaxCallsInsideStatement + 1, '.') + "xxxxx...";
  EXPECT_EQ(marked(p, span.ops), step + "|" + step + "|" + step);
  EXPECT_EQ(span.executions_from_lines, 0u);
}

// A read-back inside a helper (`helper.py:134`) called from the line
// `loop_file:50`, whose line events the recording has (the helper's own
// code has none: it is not on the optimizer step's stack).
StatementSpan helper_span(const std::string& loop_file, const CodeOwnershipOptions& code = {}) {
  constexpr uint32_t kHelper = 5, kLoop = 6, kRead = 31;
  syncscope::testing::Stream s;
  Recording r;
  for (int step = 0; step < 3; ++step) {
    const uint64_t start = s.now();
    s.python_line(kLoop, 50);
    s.idle(40000);
    read_back(s, kRead);
    s.idle(40000);
    s.python_line(kLoop, 51);
    s.launch(0xe, 0);
    r.steps.emplace_back(start, s.now());
  }
  r.trace.events = s.events();
  add_stacks(&r.trace);
  r.trace.python_code[kHelper] = PythonCode{"/home/u/helper.py", "log_loss", 130};
  r.trace.python_code[kLoop] = PythonCode{loop_file, "loop", 40};
  r.trace.python_stacks[kRead] = {{kHelper, 134}, {kLoop, 50}, {kUserCode, 71}};
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  return statement_span(p, r.trace, 1, kRead, code);
}

TEST(StatementSpan, PastTheLineThatSyncsOnlyTheUsersLinesStandForIt) {
  // The user's loop calling a helper: running that line every N steps is the fix.
  EXPECT_EQ(helper_span("/home/u/train.py").executions_from_lines, 3u);
  // A library's loop calling its logging hooks runs them whatever the user sets.
  EXPECT_EQ(helper_span("/venv/lib/python3.12/site-packages/lightning/loops/loop.py").executions_from_lines, 0u);
  // As the report names lines: --library-code and --user-code move files.
  CodeOwnershipOptions vendored;
  vendored.library_code = {"/home/u/vendor"};
  EXPECT_EQ(helper_span("/home/u/vendor/loop.py", vendored).executions_from_lines, 0u);
  CodeOwnershipOptions editable;
  editable.user_code = {"/venv/lib/python3.12/site-packages/mylib"};
  EXPECT_EQ(helper_span("/venv/lib/python3.12/site-packages/mylib/loop.py", editable).executions_from_lines, 3u);
}

TEST(StatementSpan, NoneWithoutALineOutsidePyTorch) {
  Recording r = print_loop(1);
  TraceProgram p = program_from_trace(r.trace, r.steps, {});
  for (uint32_t stack : {kFrameworkOnly, 99u, 0u}) {
    const std::vector<bool> span = statement_span(p, r.trace, 1, stack).ops;
    EXPECT_EQ(std::count(span.begin(), span.end(), true), 0) << stack;
  }
}

}  // namespace
}  // namespace syncscope::whatif
