// The replay model's rules, one by one, on hand-made programs.
#include "whatif/replay.h"

#include <gtest/gtest.h>

#include "tests/unit/whatif/loops.h"
#include "whatif/what_if.h"

namespace syncscope::whatif {
namespace {

using testing::kUs;

Op enqueue(uint64_t stream, uint64_t gpu_ns, uint64_t host_before = 0, uint32_t step = 0) {
  Op op;
  op.kind = OpKind::kEnqueue;
  op.stream = stream;
  op.gpu_ns = gpu_ns;
  op.host_before_ns = host_before;
  op.step = step;
  return op;
}

Op wait_op(OpKind kind, uint64_t stream = kLegacyStream, uint64_t event = 0, uint32_t step = 0) {
  Op op;
  op.kind = kind;
  op.stream = stream;
  op.event = event;
  op.step = step;
  return op;
}

Program program(std::vector<Op> ops) {
  Program p;
  p.launch_latency_ns = 0;  // the rules below, without the launch delay
  p.ops = std::move(ops);
  return p;
}

TEST(Replay, ASyncWaitsForItsStreamOnly) {
  const uint64_t a = 0x1000, b = 0x2000;
  Replay r = replay(program({enqueue(a, 100 * kUs), enqueue(b, 300 * kUs), wait_op(OpKind::kStreamSync, a)}));
  EXPECT_EQ(r.host_end_ns[0], 100 * kUs) << "stream a's work, not b's";
  EXPECT_EQ(r.waited_ns[2], 100 * kUs);
  EXPECT_EQ(r.gpu_end_ns, 300 * kUs);
}

TEST(Replay, ADeviceSyncWaitsForEveryStream) {
  const uint64_t a = 0x1000, b = 0x2000;
  Replay r = replay(program({enqueue(a, 100 * kUs), enqueue(b, 300 * kUs), wait_op(OpKind::kDeviceSync)}));
  EXPECT_EQ(r.host_end_ns[0], 300 * kUs);
}

TEST(Replay, WorkOnAStreamRunsInOrderAndHostWorkOverlapsIt) {
  Replay r = replay(program(
      {enqueue(0x1000, 100 * kUs), enqueue(0x1000, 100 * kUs, 50 * kUs), wait_op(OpKind::kStreamSync, 0x1000)}));
  EXPECT_EQ(r.host_end_ns[0], 200 * kUs) << "the second kernel queued behind the first; the host's 50 µs hidden";
  EXPECT_EQ(r.host_blocked_ns, 150 * kUs);
}

TEST(Replay, TheLegacyStreamAndBlockingStreamsWaitForEachOther) {
  const uint64_t side = 0x1000;
  Replay r =
      replay(program({enqueue(kLegacyStream, 100 * kUs), enqueue(side, 10 * kUs), wait_op(OpKind::kStreamSync, side)}));
  EXPECT_EQ(r.host_end_ns[0], 110 * kUs) << "a blocking stream's work waits for the legacy stream's";
  Program p = program({enqueue(kLegacyStream, 100 * kUs), enqueue(side, 10 * kUs), wait_op(OpKind::kStreamSync, side)});
  p.non_blocking_streams = {side};
  EXPECT_EQ(replay(p).host_end_ns[0], 10 * kUs) << "a non-blocking stream's does not";
  Replay back = replay(program(
      {enqueue(side, 100 * kUs), enqueue(kLegacyStream, 10 * kUs), wait_op(OpKind::kStreamSync, kLegacyStream)}));
  EXPECT_EQ(back.host_end_ns[0], 110 * kUs) << "the legacy stream's work waits for a blocking stream's";
}

TEST(Replay, EventsOrderStreamsAndHoldTheHost) {
  const uint64_t a = 0x1000, b = 0x2000, event = 0xe0;
  Program p = program({enqueue(a, 100 * kUs), wait_op(OpKind::kEventRecord, a, event), enqueue(a, 500 * kUs),
                       wait_op(OpKind::kStreamWait, b, event), enqueue(b, 10 * kUs), wait_op(OpKind::kStreamSync, b)});
  p.non_blocking_streams = {a, b};
  EXPECT_EQ(replay(p).host_end_ns[0], 110 * kUs) << "b waits for the event (100 µs), not for a's later work";
  Program q = program({enqueue(a, 100 * kUs), wait_op(OpKind::kEventRecord, a, event), enqueue(a, 500 * kUs),
                       wait_op(OpKind::kEventSync, kLegacyStream, event)});
  EXPECT_EQ(replay(q).host_end_ns[0], 100 * kUs);
  Program never = program({wait_op(OpKind::kEventSync, kLegacyStream, 0xbad)});
  EXPECT_EQ(replay(never).host_end_ns[0], 0u) << "an event never recorded is complete";
}

TEST(Replay, ABlockingCopyQueuesAndWaits) {
  Op copy = enqueue(kLegacyStream, 20 * kUs);
  copy.kind = OpKind::kBlockingCopy;
  copy.call_ns = 3 * kUs;
  Replay r = replay(program({enqueue(kLegacyStream, 100 * kUs), copy}));
  EXPECT_EQ(r.host_end_ns[0], 120 * kUs) << "behind the kernel, then its own 20 µs";
}

TEST(Replay, AFullQueueHoldsTheHost) {
  Program p = program({});
  p.queue_depth = 4;
  for (int i = 0; i < 10; ++i) p.ops.push_back(enqueue(kLegacyStream, 100 * kUs, 1 * kUs));
  Replay r = replay(p);
  // Launch 5 waits for the first kernel to finish, and so on: the host ends
  // when the 6th kernel finished, plus its own 1 µs before the last launch.
  EXPECT_GE(r.host_end_ns[0], 600 * kUs);
  EXPECT_LT(r.host_end_ns[0], 700 * kUs);
  EXPECT_EQ(r.gpu_end_ns, 1000 * kUs + 1 * kUs);
}

TEST(Replay, StepEndsFollowTheOpsSteps) {
  Replay r = replay(program({enqueue(0, 0, 10 * kUs, 0), enqueue(0, 0, 20 * kUs, 1), enqueue(0, 0, 30 * kUs, 3)}));
  ASSERT_EQ(r.step_end_ns.size(), 4u);
  EXPECT_EQ(r.host_end_ns[0], 10 * kUs);
  EXPECT_EQ(r.step_end_ns[1], 30 * kUs);
  EXPECT_EQ(r.step_end_ns[2], 30 * kUs) << "a step with no op ends where the one before did";
  EXPECT_EQ(r.step_end_ns[3], 60 * kUs);
  EXPECT_DOUBLE_EQ(r.mean_step_ns(1, 4), 50.0 * kUs / 3);
}

TEST(WhatIf, ReadLaterDropsTheWaitAndKeepsTheCopyAndTheHostWork) {
  Program p = testing::training_loop(3, 100 * kUs, 2, 50 * kUs, true);
  Program fixed = apply_fixes(p, {{testing::kReadBackSite, Fix::kReadLater}});
  ASSERT_EQ(fixed.ops.size(), p.ops.size() - 3) << "the three syncs gone";
  uint64_t host_before = 0, host_after = 0;
  for (const Op& op : p.ops) host_before += op.host_before_ns;
  for (const Op& op : fixed.ops) host_after += op.host_before_ns;
  EXPECT_EQ(host_before, host_after) << "the host's own work is not what the fix removes";
  for (const Op& op : fixed.ops) EXPECT_NE(op.kind, OpKind::kStreamSync);
}

// host 100 µs, launch, [statement: 7 µs, `a`, 9 µs, `b`, 2 µs, `c`],
// 11 µs, launch; the statement's ops are site 4.
Program statement_program(Op a, Op b, Op c) {
  Op before = enqueue(kLegacyStream, 10 * kUs);
  before.host_before_ns = 100 * kUs;
  a.host_before_ns = 7 * kUs;
  b.host_before_ns = 9 * kUs;
  c.host_before_ns = 2 * kUs;
  Op after = enqueue(kLegacyStream, 10 * kUs);
  after.host_before_ns = 11 * kUs;
  return program({before, a, b, c, after});
}

Op stream_sync() {
  Op sync;
  sync.kind = OpKind::kStreamSync;
  return sync;
}

// print(loss)'s shape: a launch, a read-back's copy and its sync.
Program print_statement_program() {
  Op copy = enqueue(kLegacyStream, 2 * kUs);
  copy.kind = OpKind::kBlockingCopy;
  copy.call_ns = 4 * kUs;
  return statement_program(enqueue(kLegacyStream, 10 * kUs), copy, stream_sync());
}

TEST(WhatIf, EveryNStepsRemovesTheStatementsCallsAndTheWorkBetweenThem) {
  Program p = print_statement_program();
  const OpMarks marks{{0, 4, 4, 4, 0}, {}};
  Program fixed = apply_fixes(p, {{4, Fix::kEveryNSteps}}, &marks);
  ASSERT_EQ(fixed.ops.size(), 4u) << "the sync goes";
  EXPECT_EQ(fixed.ops[1].host_before_ns, 7 * kUs) << "the work before the statement's first call stays";
  EXPECT_EQ(fixed.ops[2].host_before_ns, 0u) << "the work between its calls goes";
  EXPECT_EQ(fixed.ops[2].kind, OpKind::kEnqueue) << "what it queued stays queued";
  EXPECT_EQ(fixed.ops[2].call_ns, 0u);
  EXPECT_EQ(fixed.ops[3].host_before_ns, 11 * kUs);
  EXPECT_EQ(replay(fixed).host_end_ns[0], (100 + 7 + 11) * kUs) << "the host waits for nothing";
}

TEST(WhatIf, EveryNStepsTakesTheStatementsWorkBeforeItsFirstCallAndAfterItsLastWhenLinesBoundIt) {
  // The same program; the statement's line begins 5 µs before its first
  // call, the next line 6 µs after its last.
  Program p = print_statement_program();
  const OpMarks marks{{0, 4, 4, 4, 0}, {0, 5 * kUs, 9 * kUs, 2 * kUs, 6 * kUs}};
  Program fixed = apply_fixes(p, {{4, Fix::kEveryNSteps}}, &marks);
  ASSERT_EQ(fixed.ops.size(), 4u);
  EXPECT_EQ(fixed.ops[1].host_before_ns, 2 * kUs) << "the work before the line began stays";
  EXPECT_EQ(fixed.ops[2].host_before_ns, 0u);
  EXPECT_EQ(fixed.ops[3].host_before_ns, 5 * kUs) << "the work after the next line began stays";
  EXPECT_EQ(replay(fixed).host_end_ns[0], (100 + 2 + 5) * kUs);
}

TEST(WhatIf, EveryNStepsKeepsTheWorkBeforeAStatementThatBeginsWithASync) {
  // The statement: a sync, a launch, a sync.
  Program p = statement_program(stream_sync(), enqueue(kLegacyStream, 10 * kUs), stream_sync());
  const OpMarks marks{{0, 4, 4, 4, 0}, {}};
  Program fixed = apply_fixes(p, {{4, Fix::kEveryNSteps}}, &marks);
  ASSERT_EQ(fixed.ops.size(), 3u) << "both syncs go, the launch stays queued";
  EXPECT_EQ(fixed.ops[1].host_before_ns, 7 * kUs) << "the work before the statement's first call, carried past it";
  EXPECT_EQ(fixed.ops[2].host_before_ns, 11 * kUs);
}

// x[:, [-1]]'s shape: the list's tensor copied from pageable memory (a
// blocking copy), then the index kernel. A slice takes the statement's
// work and its wait out of the step, as every N steps would.
TEST(WhatIf, DropStatementTakesTheStatementOutOfTheStepAsEveryNStepsDoes) {
  Op copy = enqueue(kLegacyStream, 2 * kUs);
  copy.kind = OpKind::kBlockingCopy;
  copy.call_ns = 12 * kUs;
  Program p = statement_program(enqueue(kLegacyStream, 10 * kUs), copy, enqueue(kLegacyStream, 3 * kUs));
  const OpMarks marks{{0, 4, 4, 4, 0}, {0, 5 * kUs, 9 * kUs, 2 * kUs, 6 * kUs}};
  const Program dropped = apply_fixes(p, {{4, Fix::kDropStatement}}, &marks);
  const Program every_n = apply_fixes(p, {{4, Fix::kEveryNSteps}}, &marks);
  ASSERT_EQ(dropped.ops.size(), every_n.ops.size());
  for (size_t i = 0; i < dropped.ops.size(); ++i) {
    EXPECT_EQ(dropped.ops[i].host_before_ns, every_n.ops[i].host_before_ns) << i;
    EXPECT_EQ(dropped.ops[i].call_ns, every_n.ops[i].call_ns) << i;
    EXPECT_EQ(dropped.ops[i].kind, every_n.ops[i].kind) << i;
  }
  EXPECT_EQ(replay(dropped).host_end_ns[0], (100 + 2 + 5) * kUs) << "no copy call, no wait, no statement work";
  EXPECT_LT(replay(dropped).host_end_ns[0], replay(p).host_end_ns[0]);
}

TEST(WhatIf, PinnedAsyncMakesABlockingCopyQueued) {
  Op copy = enqueue(kLegacyStream, 20 * kUs);
  copy.kind = OpKind::kBlockingCopy;
  copy.site = 3;
  Program p = program({enqueue(kLegacyStream, 100 * kUs), copy});
  Program fixed = apply_fixes(p, {{3, Fix::kPinnedAsync}});
  EXPECT_EQ(fixed.ops[1].kind, OpKind::kEnqueue);
  EXPECT_EQ(replay(fixed).host_end_ns[0], 0u) << "the host waits for nothing";
}

// A pageable copy's staging (its work after the wait) goes too: the data
// is pinned off the training thread, as the hints say.
TEST(WhatIf, PinnedAsyncTakesThePageableCopysStagingWithIt) {
  Op copy = enqueue(kLegacyStream, 20 * kUs);
  copy.kind = OpKind::kBlockingCopy;
  copy.call_ns = 2 * kUs;
  copy.waited_ns = 30 * kUs;
  copy.after_ns = 60 * kUs;
  copy.works_besides_waiting = true;
  copy.site = 3;
  Program fixed = apply_fixes(program({enqueue(kLegacyStream, 100 * kUs), copy}), {{3, Fix::kPinnedAsync}});
  EXPECT_EQ(fixed.ops[1].after_ns, 0u);
  EXPECT_EQ(fixed.ops[1].waited_ns, 0u);
  EXPECT_EQ(replay(fixed).host_end_ns[0], 2 * kUs) << "the copy's own call, no staging, no wait";
}

TEST(WhatIf, ASideStreamCopyNoLongerWaitsForCompute) {
  Op copy = enqueue(kLegacyStream, 50 * kUs);
  copy.site = 5;
  Op use = enqueue(kLegacyStream, 10 * kUs);
  Op copy_sync = wait_op(OpKind::kDeviceSync);
  Program p = program({enqueue(kLegacyStream, 400 * kUs), copy, use, copy_sync});
  EXPECT_EQ(replay(p).host_end_ns[0], 460 * kUs);
  Program fixed = apply_fixes(p, {{5, Fix::kSideStream}});
  ASSERT_EQ(fixed.ops.size(), p.ops.size() + 2) << "an event recorded on the side stream, waited on by compute";
  EXPECT_EQ(replay(fixed).host_end_ns[0], 410 * kUs) << "the copy overlaps the 400 µs kernel";
}

// The event record and wait a side stream adds are CUDA calls: each costs
// the host what the program's launches cost (their median call).
TEST(WhatIf, ASideStreamsEventCallsCostTheProgramsMedianLaunch) {
  Op kernel = enqueue(kLegacyStream, 400 * kUs);
  kernel.call_ns = 3 * kUs;
  Op copy = enqueue(kLegacyStream, 50 * kUs);
  copy.call_ns = 5 * kUs;
  copy.site = 5;
  Op use = enqueue(kLegacyStream, 10 * kUs);
  use.call_ns = 4 * kUs;
  const Program fixed = apply_fixes(program({kernel, copy, use}), {{5, Fix::kSideStream}});
  ASSERT_EQ(fixed.ops.size(), 5u);
  EXPECT_EQ(fixed.ops[2].kind, OpKind::kEventRecord);
  EXPECT_EQ(fixed.ops[3].kind, OpKind::kStreamWait);
  EXPECT_EQ(fixed.ops[2].call_ns, 4 * kUs) << "the median of 3, 4 and 5 µs";
  EXPECT_EQ(fixed.ops[3].call_ns, 4 * kUs);
}

// Its Python operations (the stream switch, wait_stream, record_stream)
// are host work too: each at what one operation costs the host before a
// launch (the median over the program's launches), the recorder's capture
// left out.
TEST(WhatIf, ASideStreamsOperationsCostTheProgramsMedianDispatch) {
  std::vector<Op> ops;
  for (uint64_t before : {12, 16, 14}) {
    Op kernel = enqueue(kLegacyStream, 10 * kUs, before * kUs);
    kernel.call_ns = 4 * kUs;
    ops.push_back(kernel);
  }
  Op copy = enqueue(kLegacyStream, 5 * kUs, 22 * kUs);
  copy.call_ns = 4 * kUs;
  copy.recorder_ns = 6 * kUs;
  copy.site = 5;
  ops.push_back(copy);
  const Program p = program(ops);
  const Program fixed = apply_fixes(p, {{5, Fix::kSideStream}});
  ASSERT_EQ(fixed.ops.size(), 6u);
  EXPECT_EQ(fixed.ops[3].host_before_ns, 22 * kUs) << "the copy is queued when it was";
  EXPECT_EQ(fixed.ops[4].host_before_ns, kSideStreamOperations * 16 * kUs) << "the median of 12, 14, 16, 22 - 6 µs";
  EXPECT_EQ(fixed.ops[5].host_before_ns, 0u);
  // Host-bound: the fix costs its operations and its two calls.
  const uint64_t before = replay(p).host_end_ns[0];
  EXPECT_EQ(replay(fixed).host_end_ns[0], before + (kSideStreamOperations * 16 + 2 * 4) * kUs);
}

// Not what the host did before the moved copies: a copy made once a step
// follows the loop's top and the optimizer's return, a batch's first copy
// the DataLoader's work.
TEST(WhatIf, ASideStreamsOperationsDoNotCostTheWorkBeforeTheCopies) {
  std::vector<Op> ops;
  for (int step = 0; step < 3; ++step) {
    for (uint64_t before : {300, 12}) {  // x after the DataLoader, then y
      Op copy = enqueue(kLegacyStream, 5 * kUs, before * kUs);
      copy.site = 5;
      ops.push_back(copy);
    }
    for (int layer = 0; layer < 4; ++layer) ops.push_back(enqueue(kLegacyStream, 10 * kUs, 20 * kUs));
  }
  const Program fixed = apply_fixes(program(ops), {{5, Fix::kSideStream}});
  ASSERT_EQ(fixed.ops.size(), 30u);
  for (size_t i = 0; i < fixed.ops.size(); ++i) {
    if (fixed.ops[i].kind == OpKind::kEventRecord) {
      EXPECT_EQ(fixed.ops[i].host_before_ns, kSideStreamOperations * 20 * kUs) << i;
    }
  }
}

TEST(WhatIf, SitesWithoutAFixAreUntouched) {
  Program p = testing::training_loop(2, 100 * kUs, 2, 50 * kUs, true);
  Program same = apply_fixes(p, {{999, Fix::kDropSync}});
  ASSERT_EQ(same.ops.size(), p.ops.size());
  EXPECT_EQ(replay(same).step_end_ns, replay(p).step_end_ns);
}

}  // namespace
}  // namespace syncscope::whatif

namespace syncscope::whatif {
namespace {

// `if loss > x:`'s shape: the comparison's launch, then the read-back's
// copy and its wait (site 4, the finding's, marked by kReadBackMarks).
Program bool_read_back_program() {
  Op copy = enqueue(kLegacyStream, 2 * kUs);
  copy.kind = OpKind::kBlockingCopy;
  copy.call_ns = 12 * kUs;
  return statement_program(enqueue(kLegacyStream, 10 * kUs), copy, stream_sync());
}
const OpMarks kReadBackMarks{{0, 0, 4, 4, 0}, {}};

// Deciding on the GPU keeps the launch and the statement's work before it;
// the copy, its wait and the host work between them go, and one launch
// takes their place. Read-later keeps the copy's call.
TEST(WhatIf, ComputeOnGpuTakesTheReadBackAwayAndKeepsTheRestOfTheStatement) {
  const Program p = bool_read_back_program();
  const OpMarks& marks = kReadBackMarks;
  const Program on_gpu = apply_fixes(p, {{4, Fix::kComputeOnGpu}}, &marks);
  ASSERT_EQ(on_gpu.ops.size(), 4u) << "the copy and the sync go, one launch decides in their place";
  EXPECT_EQ(on_gpu.ops[1].host_before_ns, 7 * kUs) << "the statement's work before its launch stays";
  EXPECT_EQ(on_gpu.ops[2].kind, OpKind::kEnqueue);
  EXPECT_EQ(on_gpu.ops[2].host_before_ns, 9 * kUs) << "the work before the copy stays";
  EXPECT_EQ(on_gpu.ops[3].host_before_ns, 11 * kUs) << "the work between copy and sync goes";
  EXPECT_EQ(replay(on_gpu).host_end_ns[0], (100 + 7 + 9 + 11) * kUs);
  const Program later = apply_fixes(p, {{4, Fix::kReadLater}}, &marks);
  EXPECT_EQ(replay(later).host_end_ns[0], (100 + 7 + 9 + 12 + 2 + 11) * kUs)
      << "read-later keeps the copy's call and the work after it";
  EXPECT_LT(replay(on_gpu).host_end_ns[0], replay(later).host_end_ns[0]);
  const Program fixed_shape = apply_fixes(p, {{4, Fix::kFixedShape}}, &marks);
  EXPECT_EQ(replay(fixed_shape).host_end_ns[0], replay(on_gpu).host_end_ns[0])
      << "marked with its calls alone (no line events), fixed-shape takes what compute-on-gpu takes; its 4-byte "
         "copy stays queued, at no host time";
  const Program dropped = apply_fixes(p, {{4, Fix::kDropReadBack}}, &marks);
  EXPECT_EQ(replay(dropped).host_end_ns[0], replay(on_gpu).host_end_ns[0])
      << "a known site's setting that removes its read-back takes what compute-on-gpu takes (its launches "
         "cost no host time here)";
  EXPECT_EQ(dropped.ops.size() + 1, on_gpu.ops.size()) << "nothing takes the read's place";
}

// The launch that decides on the GPU costs what this program's launches
// cost the host: on a host-bound loop it takes back part of the saving
// (branch_on_tensor.py's fixed twin on an H200), where a library setting
// that drops the check takes back nothing.
TEST(WhatIf, ComputeOnGpuSpendsTheProgramsMedianLaunchOnTheDecision) {
  Program p = bool_read_back_program();
  p.ops[0].call_ns = 3 * kUs;  // the program's launches: 3, 4 and 50 µs calls
  p.ops[1].call_ns = 4 * kUs;
  p.ops[4].call_ns = 50 * kUs;
  const OpMarks& marks = kReadBackMarks;
  const Program on_gpu = apply_fixes(p, {{4, Fix::kComputeOnGpu}}, &marks);
  ASSERT_EQ(on_gpu.ops.size(), 4u);
  EXPECT_EQ(on_gpu.ops[2].call_ns, 4 * kUs) << "the median launch call, not the mean";
  EXPECT_EQ(on_gpu.ops[2].gpu_ns, 0u) << "a scalar's kernel";
  EXPECT_EQ(replay(on_gpu).host_end_ns[0],
            replay(apply_fixes(p, {{4, Fix::kDropReadBack}}, &marks)).host_end_ns[0] + 4 * kUs);
  Program twice = p;  // two executions of the statement in a row: one decision each
  twice.ops.insert(twice.ops.end(), p.ops.begin() + 1, p.ops.end());
  const OpMarks twice_marks{{0, 0, 4, 4, 0, 0, 4, 4, 0}, {}};
  size_t decisions = 0;
  for (const Op& op : apply_fixes(twice, {{4, Fix::kComputeOnGpu}}, &twice_marks).ops) {
    decisions += op.kind == OpKind::kEnqueue && op.call_ns == 4 * kUs && op.gpu_ns == 0;
  }
  EXPECT_EQ(decisions, 2u);
}

// A known site whose setting drops more than the read (GradScaler under
// bf16: seven launching operations, sites/known_sites.json) takes each off
// the host at what one launching operation costs this program: its median
// dispatch and launch call, from the work of the ops after the site, once
// an execution; their GPU work stays.
TEST(WhatIf, DropReadBackTakesTheSettingsOtherOperationsOffTheHost) {
  std::vector<Op> ops;
  for (uint32_t step = 0; step < 2; ++step) {
    for (uint64_t before : {12, 16, 14}) {
      Op kernel = enqueue(kLegacyStream, 10 * kUs, before * kUs, step);
      kernel.call_ns = 4 * kUs;
      ops.push_back(kernel);
    }
    Op copy = enqueue(kLegacyStream, 2 * kUs, 3 * kUs, step);
    copy.kind = OpKind::kBlockingCopy;
    copy.call_ns = 12 * kUs;
    Op sync = stream_sync();
    sync.step = step;
    sync.host_before_ns = 1 * kUs;
    ops.insert(ops.end(), {copy, sync});
    for (uint64_t before : {50, 50}) {  // what follows the read: the optimizer's step
      Op kernel = enqueue(kLegacyStream, 10 * kUs, before * kUs, step);
      kernel.call_ns = 4 * kUs;
      ops.push_back(kernel);
    }
  }
  const Program p = program(ops);
  const OpMarks marks{{0, 0, 0, 4, 4, 0, 0, 0, 0, 0, 4, 4, 0, 0}, {}};
  const Program read_only = apply_fixes(p, {{4, Fix::kDropReadBack}}, &marks);
  const Program with_ops = apply_fixes(p, {{4, Fix::kDropReadBack, 2}}, &marks);
  ASSERT_EQ(with_ops.ops.size(), read_only.ops.size()) << "no op of the recording goes besides the read";
  // Dispatch: the launches' median of 12, 16, 14, 50, 50 (each step), 16
  // µs; the launch call 4 µs; two operations, 40 µs, once a step, from the
  // 54 µs before the launch after the read (50, and the read's 3 + 1
  // carried).
  const uint64_t one_operation = (16 + 4) * kUs;
  uint64_t taken = 0;
  for (size_t i = 0; i < read_only.ops.size(); ++i) {
    taken += read_only.ops[i].host_before_ns - with_ops.ops[i].host_before_ns;
    EXPECT_EQ(read_only.ops[i].gpu_ns, with_ops.ops[i].gpu_ns) << "their GPU work stays";
  }
  EXPECT_EQ(taken, 2 * 2 * one_operation) << "two operations, each step";
  EXPECT_EQ(with_ops.ops[3].host_before_ns, read_only.ops[3].host_before_ns - 2 * one_operation)
      << "taken from the work after the read, first from the op right after it";
  EXPECT_EQ(replay(read_only).host_end_ns[1] - replay(with_ops).host_end_ns[1], 2 * 2 * one_operation)
      << "host-bound: the saving grows by their host time";
  const Program other_fix = apply_fixes(p, {{4, Fix::kComputeOnGpu, 2}}, &marks);
  EXPECT_EQ(replay(other_fix).host_end_ns[1], replay(apply_fixes(p, {{4, Fix::kComputeOnGpu}}, &marks)).host_end_ns[1])
      << "only drop-read-back takes a setting's operations";
}

// The recorder captures a sync's or a copy's stack before the call, host
// time a plain run does not spend (on an H200, 11 µs a capture under
// Accelerate): the recording holds it, so the replay as recorded does, but
// a fix that takes the work before a call with it must leave it, or the
// recorder's cost is predicted as the fix's saving.
TEST(WhatIf, NoFixRemovesTheRecordersStackCapture) {
  Program p = bool_read_back_program();
  const OpMarks& marks = kReadBackMarks;
  const uint64_t unrecorded = replay(apply_fixes(p, {{4, Fix::kComputeOnGpu}}, &marks)).host_end_ns[0];
  EXPECT_EQ(unrecorded, (100 + 7 + 9 + 11) * kUs) << "the work between copy and sync goes";
  p.ops[2].recorder_ns = 5 * kUs;  // of the copy's 9 µs before it
  p.ops[3].recorder_ns = 2 * kUs;  // all of the sync's 2 µs before it: its capture
  for (Fix fix : {Fix::kComputeOnGpu, Fix::kDropReadBack, Fix::kEveryNSteps, Fix::kReadLater}) {
    const Program fixed = apply_fixes(p, {{4, fix}}, &marks);
    uint64_t host = 0;
    for (const Op& op : fixed.ops) host += op.host_before_ns;
    EXPECT_GE(host, (100 + 5 + 2) * kUs) << fix_name(fix) << ": both captures stay";
    if (fix != Fix::kReadLater) {
      EXPECT_EQ(replay(fixed).host_end_ns[0], unrecorded + 2 * kUs) << fix_name(fix) << ": the sync's capture stays";
    }
  }
  EXPECT_EQ(replay(p).host_end_ns[0], replay(apply_fixes(p, {}, &marks)).host_end_ns[0])
      << "as recorded, the captures are replayed";
}

TEST(WhatIf, DropCallRemovesTheCallAndItsHostTime) {
  Op malloc_call;
  malloc_call.kind = OpKind::kHostOnly;
  malloc_call.call_ns = 80 * kUs;
  malloc_call.host_before_ns = 5 * kUs;
  malloc_call.site = 9;
  Op next;
  next.kind = OpKind::kHostOnly;
  next.call_ns = 1 * kUs;
  next.host_before_ns = 2 * kUs;
  Program p;
  p.ops = {malloc_call, next};
  Program fixed = apply_fixes(p, {{9, Fix::kDropCall}});
  ASSERT_EQ(fixed.ops.size(), 1u);
  EXPECT_EQ(replay(fixed).host_end_ns[0], 8 * kUs) << "the host's work before it stays, the call's 80 µs go";
}

// cudaFree after a kernel: its device-wide sync waits 100 µs for the kernel,
// then the call unmaps memory for 400 µs more, with the GPU idle. Recorded:
// the call took 500 µs (3 of them its own, 497 waiting).
Program free_after_kernel() {
  Op free_call = wait_op(OpKind::kDeviceSync);
  free_call.call_ns = 3 * kUs;
  free_call.waited_ns = 497 * kUs;
  free_call.site = 7;
  free_call.works_besides_waiting = true;
  return program({enqueue(0x1000, 100 * kUs), free_call});
}

TEST(Replay, TimeAWaitingCallTookBeyondItsGpuWorkIsHostWorkAfterTheWait) {
  const Program recorded = free_after_kernel();
  EXPECT_EQ(replay(recorded).host_end_ns[0], 100 * kUs) << "uncalibrated: the unmapping is lost";
  const Program calibrated = with_unexplained_time_in_calls(recorded);
  EXPECT_EQ(calibrated.ops[1].after_ns, 400 * kUs);
  EXPECT_EQ(calibrated.ops[1].waited_ns, 97 * kUs);
  EXPECT_EQ(replay(calibrated).host_end_ns[0], 500 * kUs) << "the call as long as recorded";
  // Dropping the call (the caching allocator keeps the memory) removes it
  // all: the sync and the 400 µs of unmapping after it.
  EXPECT_EQ(replay(apply_fixes(calibrated, {SiteFix{7, Fix::kDropCall}})).host_end_ns[0], 0u);
}

TEST(Replay, AWaitTheGpuExplainsKeepsNoHostWorkAfterIt) {
  Op sync = wait_op(OpKind::kBlockingCopy, 0x1000);
  sync.works_besides_waiting = true;
  sync.call_ns = 3 * kUs;
  sync.waited_ns = 90 * kUs;  // recorded shorter than the replay's 100 µs: the model's error, not host work
  const Program calibrated = with_unexplained_time_in_calls(program({enqueue(0x1000, 100 * kUs), sync}));
  EXPECT_EQ(calibrated.ops[1].after_ns, 0u);
  EXPECT_EQ(calibrated.ops[1].waited_ns, 90 * kUs) << "the recorded split stays";
  EXPECT_EQ(replay(calibrated).host_end_ns[0], 100 * kUs);
}

TEST(Replay, APlainSyncsUnexplainedTimeIsNotHostWork) {
  Op sync = wait_op(OpKind::kStreamSync, 0x1000);
  sync.call_ns = 3 * kUs;
  sync.waited_ns = 497 * kUs;  // the GPU was busier than its times say: dropping the sync would not give it back
  const Program calibrated = with_unexplained_time_in_calls(program({enqueue(0x1000, 100 * kUs), sync}));
  EXPECT_EQ(calibrated.ops[1].after_ns, 0u);
}

}  // namespace
}  // namespace syncscope::whatif
