#include <gtest/gtest.h>

#include "detectors/detectors.h"
#include "tests/unit/detectors/steps_by_time.h"
#include "tests/unit/detectors/synthetic.h"

namespace syncscope::testing {
namespace {

constexpr uint32_t kItemSite = 11, kSyncSite = 12, kUploadSite = 13, kAllocSite = 14, kFreeSite = 15;

// 20 steps: 3 kernels, an .item()-like read-back, an explicit sync every step.
Stream training_loop() {
  Stream s;
  for (int step = 0; step < 20; ++step) {
    for (int k = 0; k < 3; ++k) s.launch(k + 1);
    s.copy(ApiId::cudaMemcpyAsync, Direction::kDeviceToHost, HostMem::kPinned, 4, true, kItemSite, 1000);
    s.call(ApiId::cudaStreamSynchronize, 50000, 0x100, kItemSite);
    s.call(ApiId::cudaDeviceSynchronize, 30000, 0, kSyncSite);
  }
  return s;
}

const Finding* find(const std::vector<Finding>& fs, Cause cause, Phase phase = Phase::kSteady) {
  for (const Finding& f : fs) {
    if (f.cause == cause && f.phase == phase) return &f;
  }
  return nullptr;
}

TEST(HiddenSync, ReadBackAndExplicitPerStep) {
  Stream s = training_loop();
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  ASSERT_TRUE(steps.detected);
  std::vector<Finding> fs = detect_hidden_syncs(s.events(), steps);
  const Finding* read_back = find(fs, Cause::kReadBack);
  ASSERT_NE(read_back, nullptr);
  EXPECT_EQ(read_back->api, "cudaStreamSynchronize");
  EXPECT_EQ(read_back->api_sequence, "cudaMemcpyAsync(D2H)+cudaStreamSynchronize");
  EXPECT_EQ(read_back->stack_id, kItemSite);
  EXPECT_DOUBLE_EQ(read_back->per_step, 1.0);
  EXPECT_NEAR(read_back->blocked_ns_per_step, 51000, 1);  // sync + its copy
  EXPECT_GT(read_back->step_share, 0.2);
  EXPECT_NE(read_back->hint.find(".item()"), std::string::npos);
  const Finding* explicit_sync = find(fs, Cause::kExplicit);
  ASSERT_NE(explicit_sync, nullptr);
  EXPECT_EQ(explicit_sync->api, "cudaDeviceSynchronize");
  EXPECT_EQ(explicit_sync->stack_id, kSyncSite);
  EXPECT_NEAR(explicit_sync->blocked_ns_per_step, 30000, 1);
}

// A blocking .to(device): PyTorch queues the copy, then waits on the stream.
// Its own cause (the hint says non_blocking=True), not an explicit sync; the
// host side's kind is in the sequence for the report's operation.
TEST(HiddenSync, ABlockingCopyToTheDeviceIsCopyThenSync) {
  Stream s;
  for (int step = 0; step < 20; ++step) {
    s.copy(ApiId::cudaMemcpyAsync, Direction::kHostToDevice, HostMem::kPinned, 4096, true, kUploadSite, 2000);
    s.call(ApiId::cudaStreamSynchronize, 40000, 0x100, kUploadSite);
    s.copy(ApiId::cudaMemcpyAsync, Direction::kHostToDevice, HostMem::kPageable, 4096, true, kAllocSite, 2000);
    s.call(ApiId::cudaStreamSynchronize, 40000, 0x100, kAllocSite);
    for (int k = 0; k < 3; ++k) s.launch(k + 1);
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  std::vector<Finding> fs = detect_hidden_syncs(s.events(), steps);
  std::vector<const Finding*> blocking;
  for (const Finding& f : fs) {
    if (f.cause == Cause::kCopyThenSync && f.phase == Phase::kSteady) blocking.push_back(&f);
  }
  ASSERT_EQ(blocking.size(), 2u);
  EXPECT_EQ(find(fs, Cause::kExplicit), nullptr);
  for (const Finding* f : blocking) {
    EXPECT_EQ(f->api_sequence, f->stack_id == kUploadSite ? "cudaMemcpyAsync(H2D)+cudaStreamSynchronize"
                                                          : "cudaMemcpyAsync(H2D pageable)+cudaStreamSynchronize");
    EXPECT_NE(f->hint.find("non_blocking=True"), std::string::npos);
  }
}

TEST(HiddenSync, CapturedAndFailedCallsAreNotSyncs) {
  Stream s;
  for (int i = 0; i < 10; ++i) {
    s.launch(1);
    s.call(ApiId::cudaStreamSynchronize, 1000, 0x100, 1).flags |= kFlagCapturing;
    s.call(ApiId::cudaDeviceSynchronize, 1000, 0, 2).flags |= kFlagError;
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  EXPECT_TRUE(detect_hidden_syncs(s.events(), steps).empty());
}

TEST(HiddenSync, ImplicitFreeAndSynchronousCopies) {
  Stream s;
  for (int i = 0; i < 10; ++i) {
    s.launch(1);
    s.call(ApiId::cudaFree, 200000, 0, kFreeSite);
    s.copy(ApiId::cudaMemcpy, Direction::kHostToDevice, HostMem::kPinned, 1024, false, kUploadSite);
    s.call(ApiId::cudaFreeAsync, 1000, 0x100, 3).flags |= kFlagAsync;  // stream-ordered: not a sync
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  std::vector<Finding> fs = detect_hidden_syncs(s.events(), steps);
  EXPECT_NE(find(fs, Cause::kImplicitFree), nullptr);
  const Finding* sync_copy = find(fs, Cause::kSyncCopy);
  ASSERT_NE(sync_copy, nullptr);
  EXPECT_EQ(sync_copy->api_sequence, "cudaMemcpy(H2D)");
  for (const Finding& f : fs) EXPECT_NE(f.api, "cudaFreeAsync");
}

TEST(PageableCopy, AsyncRequestedIsFlaggedWithBytes) {
  Stream s;
  for (int i = 0; i < 12; ++i) {
    s.launch(1);
    s.copy(ApiId::cudaMemcpyAsync, Direction::kHostToDevice, HostMem::kPageable, 1 << 20, true, kUploadSite, 100000);
    s.copy(ApiId::cudaMemcpyAsync, Direction::kHostToDevice, HostMem::kPinned, 1 << 20, true, kUploadSite + 1);
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  std::vector<Finding> fs = detect_pageable_copies(s.events(), steps);
  const Finding* f = find(fs, Cause::kAsyncRequested);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->stack_id, kUploadSite);
  EXPECT_EQ(f->bytes, f->count * (1u << 20));
  EXPECT_NE(f->hint.find("pin_memory"), std::string::npos);
  for (const Finding& g : fs) EXPECT_NE(g.stack_id, kUploadSite + 1u);  // pinned copies are fine
}

TEST(AllocatorChurn, SteadyAllocationsFreeBurstsAndGrowth) {
  Stream s;
  for (int step = 0; step < 10; ++step) {
    s.launch(1);
    s.call(ApiId::cudaMalloc, 20000, 0, kAllocSite).bytes = 1000 + step * 100;  // growing
    for (int i = 0; i < 5; ++i) s.call(ApiId::cudaFree, 1000, 0, kFreeSite);    // empty_cache burst
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  ASSERT_TRUE(steps.detected);
  std::vector<Finding> fs = detect_allocator_churn(s.events(), steps);
  EXPECT_NE(find(fs, Cause::kGrowing), nullptr);
  const Finding* burst = find(fs, Cause::kFreeBurst);
  ASSERT_NE(burst, nullptr);
  EXPECT_NE(burst->hint.find("empty_cache"), std::string::npos);
}

// A tensor pinned by hand each step: PyTorch's pinned-memory allocator, so
// the device allocator's cures (no empty_cache(), expandable segments) do
// not apply, even when the frees come in a burst.
TEST(AllocatorChurn, PinnedHostMemoryHasItsOwnCause) {
  Stream s;
  for (int step = 0; step < 10; ++step) {
    s.launch(1);
    s.call(ApiId::cudaHostAlloc, 20000, 0, kAllocSite).bytes = 1000 + step * 100;  // growing, too
    for (int i = 0; i < 5; ++i) s.call(ApiId::cudaFreeHost, 1000, 0, kFreeSite);
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  ASSERT_TRUE(steps.detected);
  std::vector<Finding> fs = detect_allocator_churn(s.events(), steps);
  ASSERT_FALSE(fs.empty());
  for (const Finding& f : fs) {
    EXPECT_EQ(f.cause, Cause::kPinnedHost) << f.api << " " << phase_name(f.phase);
    EXPECT_NE(f.hint.find("pin"), std::string::npos);
    EXPECT_EQ(f.hint.find("empty_cache"), std::string::npos);
    EXPECT_EQ(f.hint.find("expandable"), std::string::npos);
  }
}

TEST(AllocatorChurn, StreamOrderedAllocationsAreNotChurn) {
  Stream s;
  for (int step = 0; step < 10; ++step) {
    s.launch(1);
    s.call(ApiId::cudaMallocAsync, 1000, 0x100, kAllocSite).flags |= kFlagAsync;
    s.call(ApiId::cudaFreeAsync, 1000, 0x100, kFreeSite).flags |= kFlagAsync;
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  EXPECT_TRUE(detect_allocator_churn(s.events(), steps).empty());
}

TEST(DefaultStream, CopiesOnTheComputeStreamAndLegacyStreamWork) {
  Stream s;
  Event& create = s.call(ApiId::cudaStreamCreate, 1000, 0x200, 1);
  create.bytes = 0;  // blocking stream
  for (int step = 0; step < 10; ++step) {
    s.copy(ApiId::cudaMemcpyAsync, Direction::kHostToDevice, HostMem::kPinned, 4096, true, kUploadSite, 1000, 0x200);
    s.launch(1, 0x200);
    s.launch(2, 0);  // legacy default stream
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  std::vector<Finding> fs = detect_default_stream(s.events(), steps);
  const Finding* copy = find(fs, Cause::kCopyOnComputeStream);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->stack_id, kUploadSite);
  EXPECT_NE(find(fs, Cause::kLegacyStream), nullptr);
}

// Copies on the compute stream cost GPU overlap that is not measured; a
// measured host wait of a tenth of a percent of the step is listed before
// them, however many copies a step makes (nanoGPT with gradient
// accumulation: 8 batch copies per step).
TEST(DefaultStream, RankedBelowAMeasuredWait) {
  Stream s;
  for (int step = 0; step < 20; ++step) {
    for (int c = 0; c < 8; ++c) {
      s.copy(ApiId::cudaMemcpyAsync, Direction::kHostToDevice, HostMem::kPinned, 4096, true, kUploadSite, 1000);
    }
    s.launch(1);
    s.idle(20000000);  // the step's other host work: the wait below is 0.1% of it
    s.copy(ApiId::cudaMemcpyAsync, Direction::kDeviceToHost, HostMem::kPinned, 4, true, kItemSite, 1000);
    s.call(ApiId::cudaStreamSynchronize, 20000, 0x100, kItemSite);
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  const Finding* copy = nullptr;
  std::vector<Finding> copies = detect_default_stream(s.events(), steps);
  copy = find(copies, Cause::kCopyOnComputeStream);
  ASSERT_NE(copy, nullptr);
  std::vector<Finding> syncs = detect_hidden_syncs(s.events(), steps);
  const Finding* read_back = find(syncs, Cause::kReadBack);
  ASSERT_NE(read_back, nullptr);
  EXPECT_DOUBLE_EQ(copy->per_step, 8.0);
  EXPECT_GT(read_back->severity, copy->severity);
}

TEST(DefaultStream, CopyStreamWithEventsIsClean) {
  Stream s;
  for (int step = 0; step < 10; ++step) {
    s.copy(ApiId::cudaMemcpyAsync, Direction::kHostToDevice, HostMem::kPinned, 4096, true, kUploadSite, 1000, 0x300);
    s.call(ApiId::cudaEventRecord, 100, 0x300);
    s.call(ApiId::cudaStreamWaitEvent, 100, 0x200);
    s.launch(1, 0x200);
  }
  StepInfo steps = detect_steps(s.events(), StepOptions{});
  EXPECT_TRUE(detect_default_stream(s.events(), steps).empty());
}

}  // namespace
}  // namespace syncscope::testing
