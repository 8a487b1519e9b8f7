// torch.compile's work is warm-up wherever it falls: a sync made while
// Inductor compiles (the first evaluation batch of a compiled model) is not
// a steady finding, the same sync made by the program's own line is.
#include <gtest/gtest.h>

#include "detectors/analysis.h"
#include "tests/unit/detectors/synthetic.h"

namespace syncscope::testing {
namespace {

constexpr uint32_t kCompileStack = 21, kUserStack = 22;

ProcessTrace loop_with_a_sync_in_step(uint32_t stack) {
  Stream s;
  for (int step = 0; step < 40; ++step) {
    for (int k = 0; k < 4; ++k) s.launch(k + 1);
    s.call(ApiId::cudaStreamSynchronize, 2000, 0x100, 3);  // the loop's own read, every step
    if (step == 20) {
      s.copy(ApiId::cudaMemcpyAsync, Direction::kHostToDevice, HostMem::kPageable, 8, true, stack);
      s.call(ApiId::cudaStreamSynchronize, 30000, 0x100, stack);
    }
  }
  ProcessTrace t;
  t.events = s.events();
  t.python_code[1] = PythonCode{"/venv/lib/python3.12/site-packages/torch/_inductor/compile_fx.py", "compile_fx", 1};
  t.python_code[2] = PythonCode{"/venv/lib/python3.12/site-packages/torch/_dynamo/eval_frame.py", "_fn", 1};
  t.python_code[3] = PythonCode{"/home/me/train.py", "evaluate", 1};
  t.python_stacks[kCompileStack] = {{1, 559}, {2, 838}, {3, 66}};
  t.python_stacks[kUserStack] = {{2, 838}, {3, 66}};  // a compiled graph running: not compiling
  return t;
}

const Finding* sync_at(const Analysis& a, uint32_t stack) {
  for (const Finding& f : a.findings) {
    if (f.category == Category::kHiddenSync && f.stack_id == stack) return &f;
  }
  return nullptr;
}

TEST(Compilation, ASyncMadeWhileCompilingIsWarmup) {
  ProcessTrace t = loop_with_a_sync_in_step(kCompileStack);
  Analysis a = analyze(t, StepOptions{});
  ASSERT_TRUE(a.steps.detected);
  const Finding* f = sync_at(a, kCompileStack);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->phase, Phase::kWarmup);
  EXPECT_EQ(f->phase_index, -1);
}

TEST(Compilation, TheSameSyncFromACompiledGraphRunningIsSteady) {
  ProcessTrace t = loop_with_a_sync_in_step(kUserStack);
  Analysis a = analyze(t, StepOptions{});
  const Finding* f = sync_at(a, kUserStack);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->phase, Phase::kSteady);
}

}  // namespace
}  // namespace syncscope::testing
