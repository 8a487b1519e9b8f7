// The line that syncs and the user's line (code_ownership, site_frames),
// the operation read from PyTorch's native stack (sync_operation), the
// known-sites table (known_sites) and the merge of findings of one line.
#include <gtest/gtest.h>

#include "detectors/finding_merge.h"
#include "report/site_text.h"
#include "sites/known_sites.h"
#include "sites/site_frames.h"
#include "sites/sync_operation.h"
#include "tests/unit/report/pytorch_frames.h"
#include "trace/code_ownership.h"

namespace syncscope::testing {
namespace {

const std::string kSite = "/venv/lib/python3.12/site-packages/";

// A known-sites table written for a test; a table that does not parse
// fails the test (callers then assert its size before using it).
std::vector<KnownSite> parsed_table(const std::string& json) {
  std::vector<KnownSite> table;
  std::string error;
  EXPECT_TRUE(parse_known_sites(json, &table, &error)) << error;
  return table;
}

TEST(CodeOwnership, ByWhereTheFileIsInstalled) {
  EXPECT_EQ(code_owner(kSite + "torch/_tensor.py", {}).owner, CodeOwner::kFramework);
  EXPECT_EQ(code_owner(kSite + "triton/runtime/jit.py", {}).owner, CodeOwner::kFramework);
  EXPECT_EQ(code_owner("/usr/lib/python3.12/json/decoder.py", {}).owner, CodeOwner::kStdlib);
  EXPECT_EQ(code_owner("<frozen runpy>", {}).owner, CodeOwner::kStdlib);
  const CodeOwnership hf = code_owner(kSite + "transformers/trainer.py", {});
  EXPECT_EQ(hf.owner, CodeOwner::kLibrary);
  EXPECT_EQ(hf.library, "transformers");
  EXPECT_EQ(code_owner("/usr/lib/python3/dist-packages/lightning/fabric/utilities/apply_func.py", {}).library,
            "lightning");
  EXPECT_EQ(code_owner(kSite + "six.py", {}).library, "six");
  EXPECT_EQ(code_owner("/home/me/proj/train.py", {}).owner, CodeOwner::kUser);
  EXPECT_EQ(code_owner("train.py", {}, "/home/me/proj").owner, CodeOwner::kUser);
  // PyTorch from a source checkout is still PyTorch.
  EXPECT_EQ(code_owner("/home/me/pytorch/torch/nn/modules/module.py", {}).owner, CodeOwner::kFramework);
}

TEST(CodeOwnership, OptionsNameTheExceptions) {
  CodeOwnershipOptions options;
  options.user_code = {kSite + "mypkg"};
  options.library_code = {"vendor/fastlib/"};
  EXPECT_EQ(code_owner(kSite + "mypkg/loop.py", options).owner, CodeOwner::kUser);
  EXPECT_EQ(code_owner(kSite + "mypkgextra/loop.py", options).owner, CodeOwner::kLibrary);  // a directory boundary
  const CodeOwnership vendored = code_owner("/home/me/proj/vendor/fastlib/ops.py", options, "/home/me/proj");
  EXPECT_EQ(vendored.owner, CodeOwner::kLibrary);
  EXPECT_EQ(vendored.library, "fastlib");
}

// A trace holding one stack: Python frames `files` (innermost first) over no native frames.
ProcessTrace trace_with_python(const std::vector<std::pair<std::string, std::string>>& frames) {
  ProcessTrace t;
  t.header.pid = 7;
  std::vector<PythonFrame> stack;
  uint32_t id = 1;
  for (const auto& [file, function] : frames) {
    t.python_code[id] = PythonCode{file, function, 1};
    stack.push_back(PythonFrame{id, 100 + id});
    ++id;
  }
  t.python_stacks[1] = stack;
  return t;
}

TEST(SiteFrames, TheLibrarysLineSyncsAndTheUsersLineReachedIt) {
  ProcessTrace t = trace_with_python({{kSite + "torch/_tensor.py", "__bool__"},
                                      {kSite + "transformers/trainer.py", "_inner_training_loop"},
                                      {kSite + "transformers/trainer.py", "train"},
                                      {"/home/me/hf_trainer.py", "<module>"}});
  Symbolizer symbolizer(t);
  SiteFrames site = site_frames(t, 1, symbolizer);
  ASSERT_TRUE(site.has_sync);
  EXPECT_EQ(site.sync.function, "_inner_training_loop");
  EXPECT_EQ(site.sync.line, 102u);
  EXPECT_EQ(site.sync.library, "transformers");
  EXPECT_EQ(site.sync_python_index, 1);
  EXPECT_TRUE(site.sync_in_library());
  ASSERT_TRUE(site.has_user);
  EXPECT_EQ(site.user.file, "/home/me/hf_trainer.py");
  EXPECT_EQ(site.user.line, 104u);
  EXPECT_EQ(sync_location(site, "/home/me"), "transformers/trainer.py:102");
  EXPECT_EQ(reached_from(site, "/home/me"), "hf_trainer.py:104  in <module>");
}

TEST(SiteFrames, InTheUsersOwnLoopBothAreOneLine) {
  ProcessTrace t = trace_with_python({{kSite + "torch/_tensor.py", "item"},
                                      {"/usr/lib/python3.12/contextlib.py", "__exit__"},
                                      {"/home/me/train.py", "step"},
                                      {"/home/me/train.py", "<module>"}});
  Symbolizer symbolizer(t);
  SiteFrames site = site_frames(t, 1, symbolizer);
  ASSERT_TRUE(site.has_sync && site.has_user);
  EXPECT_EQ(site.sync.function, "step");  // the standard library's frame is not the line that syncs
  EXPECT_EQ(site.user.line, site.sync.line);
  EXPECT_FALSE(site.sync_in_library());
  EXPECT_EQ(reached_from(site, "/home/me"), "");
}

SiteFrames native_site(std::vector<Frame> native) {
  SiteFrames site;
  site.native = std::move(native);
  site.python = {{"/home/me/train.py", 10, "step"}};
  return site;
}

Finding sync_finding(Cause cause, const std::string& api, const std::string& sequence,
                     Category category = Category::kHiddenSync) {
  Finding f;
  f.category = category;
  f.cause = cause;
  f.api = api;
  f.api_sequence = sequence;
  return f;
}

TEST(SyncOperation, ReadFromPyTorchsNativeFrames) {
  const Finding read_back =
      sync_finding(Cause::kReadBack, "cudaStreamSynchronize", "cudaMemcpyAsync(D2H)+cudaStreamSynchronize");
  EXPECT_EQ(classify_operation(read_back, native_site(item_op_frames())), Operation::kItem);

  std::vector<Frame> as_bool = item_op_frames();
  as_bool.push_back(frame("at::native::is_nonzero(at::Tensor const&)", "libtorch_cpu.so"));
  EXPECT_EQ(classify_operation(read_back, native_site(as_bool)), Operation::kBool);

  const std::vector<Frame> masked = {
      frame("at::native::nonzero_out_cuda(at::Tensor const&, at::Tensor&)", "libtorch_cuda.so"),
      frame("at::native::nonzero_cuda(at::Tensor const&)", "libtorch_cuda.so"),
      frame("at::native::expandTensors(at::Tensor const&, c10::IListRef<at::OptionalTensorRef> const&)",
            "libtorch_cpu.so"),
      frame("at::native::index(at::Tensor const&, c10::List<std::optional<at::Tensor> > const&)", "libtorch_cpu.so")};
  EXPECT_EQ(classify_operation(read_back, native_site(masked)), Operation::kNonzero);

  const std::vector<Frame> copy = {frame("at::native::copy_kernel_cuda(at::TensorIterator&, bool)", "libtorch_cuda.so"),
                                   frame("at::native::copy_(at::Tensor&, at::Tensor const&, bool)", "libtorch_cpu.so"),
                                   frame("at::native::_to_copy(at::Tensor const&, ...)", "libtorch_cpu.so")};
  EXPECT_EQ(classify_operation(read_back, native_site(copy)), Operation::kCopyToHost);
  const Finding to_device =
      sync_finding(Cause::kCopyThenSync, "cudaStreamSynchronize", "cudaMemcpyAsync(H2D)+cudaStreamSynchronize");
  EXPECT_EQ(classify_operation(to_device, native_site(copy)), Operation::kCopyToDevicePinned);
  const Finding from_pageable = sync_finding(Cause::kCopyThenSync, "cudaStreamSynchronize",
                                             "cudaMemcpyAsync(H2D pageable)+cudaStreamSynchronize");
  EXPECT_EQ(classify_operation(from_pageable, native_site(copy)), Operation::kCopyToDevicePageable);
  EXPECT_EQ(classify_operation(sync_finding(Cause::kAsyncRequested, "cudaMemcpyAsync", "cudaMemcpyAsync(H2D)",
                                            Category::kPageableCopy),
                               native_site(copy)),
            Operation::kCopyToDevicePageable);

  // minGPT's logits[logits < v[:, [-1]]]: the list index is copied to the device.
  std::vector<Frame> list_index = copy;
  list_index.push_back(
      frame("torch::utils::indexing_tensor_from_data(c10::TensorOptions, c10::ScalarType, "
            "std::optional<c10::Device>, _object*)",
            "libtorch_python.so"));
  EXPECT_EQ(classify_operation(from_pageable, native_site(list_index)), Operation::kListIndex);
  EXPECT_EQ(classify_operation(sync_finding(Cause::kAsyncRequested, "cudaMemcpyAsync", "cudaMemcpyAsync(H2D)",
                                            Category::kPageableCopy),
                               native_site(list_index)),
            Operation::kListIndex);

  const Finding explicit_sync = sync_finding(Cause::kExplicit, "cudaDeviceSynchronize", "cudaDeviceSynchronize");
  EXPECT_EQ(
      classify_operation(explicit_sync,
                         native_site({frame("c10::cuda::device_synchronize()", "libc10_cuda.so"),
                                      frame("THCPModule_cudaSynchronize(_object*, _object*)", "libtorch_python.so")})),
      Operation::kSynchronize);
  EXPECT_EQ(classify_operation(sync_finding(Cause::kImplicitFree, "cudaFree", "cudaFree"), native_site({})),
            Operation::kFree);
  EXPECT_EQ(classify_operation(explicit_sync,
                               native_site({frame("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::"
                                                  "synchronize_and_free_events()",
                                                  "libc10_cuda.so")})),
            Operation::kAllocator);
}

// print(loss) of a CUDA tensor: torch/_tensor_str.py reads it back through
// masked_select (nonzero), comparisons (is_nonzero) and .item(); one
// operation, the formatting, with one hint (print less often).
TEST(SyncOperation, PrintingATensorIsOneOperation) {
  const Finding read_back =
      sync_finding(Cause::kReadBack, "cudaStreamSynchronize", "cudaMemcpyAsync(D2H)+cudaStreamSynchronize");
  const std::vector<Frame> masked_select = {
      frame("at::native::nonzero_cuda(at::Tensor const&)", "libtorch_cuda.so"),
      frame("at::native::masked_select_cuda(at::Tensor const&, at::Tensor const&)", "libtorch_cuda.so")};
  std::vector<Frame> as_bool = item_op_frames();
  as_bool.push_back(frame("at::native::is_nonzero(at::Tensor const&)", "libtorch_cpu.so"));
  for (const std::vector<Frame>& native : {masked_select, as_bool, item_op_frames()}) {
    SiteFrames site = native_site(native);
    site.python = {{"/venv/lib/python3.12/site-packages/torch/_tensor_str.py", 150, "__init__"},
                   {"/venv/lib/python3.12/site-packages/torch/_tensor.py", 590, "__repr__"},
                   {"train.py", 7, "<module>"}};
    EXPECT_EQ(classify_operation(read_back, site), Operation::kFormat);
    site.python.erase(site.python.begin());  // Tensor.__format__'s .item() alone: f"{loss:.4f}"
    EXPECT_NE(classify_operation(read_back, site), Operation::kFormat);
  }
  EXPECT_NE(operation_hint(Operation::kFormat).find("every N steps"), std::string::npos);
  EXPECT_STREQ(operation_name(Operation::kFormat), "format");
}

// torch.backends.cudnn.benchmark: cuDNN times a new shape's plans (and
// empties the cache for their workspace) once; warm-up wherever it falls.
TEST(SyncOperation, CudnnBenchmarkIsOneOff) {
  const Finding sync = sync_finding(Cause::kExplicit, "cudaEventSynchronize", "cudaEventSynchronize");
  const std::vector<Frame> timing = {
      frame("std::vector<cudnn_frontend::ExecutionPlan_v8> cudnn_frontend::time_sorted_plan<(cudnn_frontend::"
            "CudnnFindSamplingTechnique)0>(cudnnContext*, std::vector<cudnn_frontend::ExecutionPlan_v8>, "
            "cudnn_frontend::VariantPack_v8&)",
            "libtorch_cuda.so"),
      frame("at::native::run_single_conv(cudnnBackendDescriptorType_t, at::Tensor const&, at::Tensor const&)",
            "libtorch_cuda.so")};
  EXPECT_EQ(classify_operation(sync, native_site(timing)), Operation::kAutotune);
  const std::vector<Frame> freeing = {
      frame("c10::cuda::CUDACachingAllocator::Native::NativeCachingAllocator::emptyCache(std::pair<unsigned long "
            "long, unsigned long long>)",
            "libc10_cuda.so"),
      frame("at::native::run_single_conv(cudnnBackendDescriptorType_t, at::Tensor const&, at::Tensor const&)",
            "libtorch_cuda.so")};
  EXPECT_EQ(classify_operation(sync_finding(Cause::kImplicitFree, "cudaFree", "cudaFree"), native_site(freeing)),
            Operation::kAutotune);
  EXPECT_TRUE(is_one_off(Operation::kAutotune));
  EXPECT_FALSE(is_one_off(Operation::kItem));
  // An empty_cache() of the user's own is not cuDNN's.
  EXPECT_EQ(classify_operation(sync_finding(Cause::kImplicitFree, "cudaFree", "cudaFree"), native_site({freeing[0]})),
            Operation::kFree);
}

TEST(SyncOperation, ANativeProgramsOwnCalls) {
  SiteFrames site;
  site.native = {frame("read_loss_value()", "app"), frame("main", "app")};
  site.user_native_index = 0;
  EXPECT_EQ(classify_operation(sync_finding(Cause::kExplicit, "cudaDeviceSynchronize", "cudaDeviceSynchronize"), site),
            Operation::kSynchronize);
  // Its read-back reads a value: not an explicit synchronize.
  EXPECT_EQ(
      classify_operation(
          sync_finding(Cause::kReadBack, "cudaStreamSynchronize", "cudaMemcpyAsync(D2H)+cudaStreamSynchronize"), site),
      Operation::kUnknown);
}

TEST(SyncOperation, UnknownOperationsFallBackToTheCause) {
  const Finding read_back =
      sync_finding(Cause::kReadBack, "cudaStreamSynchronize", "cudaMemcpyAsync(D2H)+cudaStreamSynchronize");
  // A stripped build: no frame names the operation.
  EXPECT_EQ(classify_operation(read_back, native_site({frame("??", "libtorch_cuda.so")})), Operation::kUnknown);
  EXPECT_EQ(operation_hint(Operation::kUnknown), "");
  // Every known operation has its own hint, and its own name.
  for (Operation op : {Operation::kItem, Operation::kBool, Operation::kNonzero, Operation::kCopyToDevicePinned,
                       Operation::kCopyToDevicePageable, Operation::kListIndex, Operation::kCopyToHost,
                       Operation::kSynchronize, Operation::kFormat}) {
    EXPECT_FALSE(operation_hint(op).empty()) << operation_name(op);
  }
  EXPECT_NE(operation_hint(Operation::kCopyToDevicePinned).find("non_blocking=True"), std::string::npos);
  EXPECT_STREQ(operation_name(Operation::kNonzero), "nonzero");
  // Made on autograd's thread: the fix is in the forward pass.
  EXPECT_NE(operation_hint(Operation::kNonzero, true).find("in the forward"), std::string::npos);
  EXPECT_EQ(operation_hint(Operation::kNonzero, true).find("masked_fill_"), std::string::npos);
  EXPECT_NE(operation_hint(Operation::kItem, true).find("Backward"), std::string::npos);
}

TEST(KnownSites, TheShippedTableIsWellFormed) {
  EXPECT_EQ(known_sites_error(), "");
  ASSERT_FALSE(known_sites().empty());
  for (const KnownSite& site : known_sites()) {
    EXPECT_FALSE(site.fix.empty()) << site.id;
    EXPECT_FALSE(site.checked.empty()) << site.id;
    for (const std::string& op : site.operations) {
      bool named = false;
      for (int i = 0; i <= static_cast<int>(Operation::kFormat); ++i) {
        named |= op == operation_name(static_cast<Operation>(i));
      }
      EXPECT_TRUE(named) << site.id << ": " << op;
    }
  }
}

TEST(KnownSites, MalformedTablesAreRefusedWithTheReason) {
  std::vector<KnownSite> out;
  std::string error;
  EXPECT_FALSE(parse_known_sites("{}", &out, &error));
  EXPECT_FALSE(parse_known_sites(R"([{"id": "x", "library": "l", "file": "f.py", "fix": "do"}])", &out, &error));
  EXPECT_NE(error.find("checked"), std::string::npos) << error;
}

TEST(KnownSites, AnEntryMayNameTheFixItsSettingMakes) {
  std::vector<KnownSite> table = parsed_table(R"([
    {"id": "a", "library": "l", "file": "l/a.py", "fix": "turn it off", "replay": "drop-statement", "checked": {"l": "1"}},
    {"id": "b", "library": "l", "file": "l/b.py", "fix": "log less", "checked": {"l": "1"}}])");
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table[0].replay, "drop-statement");
  EXPECT_EQ(table[1].replay, "") << "none: the operation's fix";
  std::string error;
  EXPECT_FALSE(parse_known_sites(R"([{"id": "c", "library": "l", "file": "l/c.py", "fix": "x", "replay": 3,
                                      "checked": {"l": "1"}}])",
                                 &table, &error));
  EXPECT_NE(error.find("replay"), std::string::npos) << error;
}

// GradScaler's read under bf16 goes with seven launching operations
// (torch/amp/grad_scaler.py: the scale's multiply, the inverse scale's
// double, reciprocal and float, found_inf's fill, the unscale, the scale
// update), in each library's entry for it.
TEST(KnownSites, AnEntryMayCountTheOperationsItsSettingDrops) {
  std::vector<KnownSite> table = parsed_table(R"([
    {"id": "a", "library": "l", "file": "l/a.py", "fix": "bf16", "replay": "drop-read-back", "drops_operations": 7,
     "checked": {"l": "1"}}])");
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0].drops_operations, 7u);
  for (const char* bad : {R"("drops_operations": -1, "replay": "drop-read-back")",
                          R"("drops_operations": "7", "replay": "drop-read-back")", R"("drops_operations": 7)",
                          R"("drops_operations": 101, "replay": "drop-read-back")"}) {
    std::string error;
    EXPECT_FALSE(parse_known_sites(std::string(R"([{"id": "c", "library": "l", "file": "l/c.py", "fix": "x", )") + bad +
                                       R"(, "checked": {"l": "1"}}])",
                                   &table, &error))
        << bad;
    EXPECT_NE(error.find("drops_operations"), std::string::npos) << error;
  }
  size_t scalers = 0;
  for (const KnownSite& site : known_sites()) {
    if (site.id.find("grad-scaler") == std::string::npos || site.replay != "drop-read-back") continue;
    ++scalers;
    EXPECT_EQ(site.drops_operations, 7u) << site.id;
  }
  EXPECT_EQ(scalers, 3u) << "torch's, Accelerate's and Lightning's";
}

TEST(KnownSites, MatchedFromTheInnermostFrameToTheSyncFrame) {
  std::vector<KnownSite> table = parsed_table(R"([
    {"id": "save", "library": "torch", "file": "torch/serialization.py", "function": "save",
     "operations": ["copy-to-host"], "fix": "save after training", "checked": {"torch": "2.11"}},
    {"id": "loop", "library": "fakelib", "file": "fakelib/trainer.py", "function": "train",
     "fix": "outer frame: never reached", "checked": {"fakelib": "1"}}])");
  ASSERT_EQ(table.size(), 2u);
  SiteFrames site;
  site.python = {{kSite + "torch/serialization.py", 10, "save"}, {"/home/me/train.py", 5, "main"}};
  site.has_sync = true;
  site.sync_python_index = 1;
  const KnownSite* save = match_known_site(table, site, Operation::kCopyToHost, Category::kHiddenSync);
  ASSERT_NE(save, nullptr);
  EXPECT_EQ(save->id, "save");
  EXPECT_EQ(match_known_site(table, site, Operation::kItem, Category::kHiddenSync),
            nullptr);  // not an operation it makes
  // Python before 3.11 records the bare function name, 3.11+ the qualified
  // one: either matches the other, two different qualified names do not.
  site.python = {{kSite + "torch/serialization.py", 10, "Pickler.save"}, {"/home/me/train.py", 5, "main"}};
  EXPECT_NE(match_known_site(table, site, Operation::kCopyToHost, Category::kHiddenSync), nullptr);
  table[0].function = "Saver.save";
  EXPECT_EQ(match_known_site(table, site, Operation::kCopyToHost, Category::kHiddenSync), nullptr);
  site.python[0].function = "save";
  EXPECT_NE(match_known_site(table, site, Operation::kCopyToHost, Category::kHiddenSync), nullptr);
  // A frame outside the sync frame (the library's train() calling its step) is not the site.
  site.python = {{kSite + "fakelib/step.py", 3, "step"}, {kSite + "fakelib/trainer.py", 9, "train"}};
  site.sync_python_index = 0;
  EXPECT_EQ(match_known_site(table, site, Operation::kItem, Category::kHiddenSync), nullptr);
}

// A generator expression is a frame of its own, named after the function
// it is written in, at the read's line: torch's GradScaler reads found_inf
// in `any(v.item() for v in ...)`, whose caller's line is the `any(`. The
// shipped entry for it matched no recording before this (the read's text is
// the generator's line, not its caller's).
TEST(KnownSites, AGeneratorExpressionIsItsFunctionsLine) {
  SiteFrames site;
  site.python = {{kSite + "torch/amp/grad_scaler.py", 451, "GradScaler._maybe_opt_step.<locals>.<genexpr>"},
                 {kSite + "torch/amp/grad_scaler.py", 450, "GradScaler._maybe_opt_step"},
                 {"/home/me/train.py", 5, "main"}};
  site.has_sync = true;
  site.sync_python_index = 0;
  site.sync.source = "v.item() for v in optimizer_state[\"found_inf_per_device\"].values()";
  const KnownSite* scaler = match_known_site(known_sites(), site, Operation::kItem, Category::kHiddenSync);
  ASSERT_NE(scaler, nullptr);
  EXPECT_EQ(scaler->id, "torch-grad-scaler-found-inf");
  // Reached from Accelerate's optimizer (the sync frame: its line calls
  // torch), Accelerate's entry names the setting its user has.
  site.python.insert(site.python.end() - 1, {kSite + "torch/amp/grad_scaler.py", 480, "GradScaler.step"});
  site.python.insert(site.python.end() - 1, {kSite + "accelerate/optimizer.py", 170, "AcceleratedOptimizer.step"});
  site.sync_python_index = 3;
  site.sync.source = "                self.scaler.step(self.optimizer, closure)";
  scaler = match_known_site(known_sites(), site, Operation::kItem, Category::kHiddenSync);
  ASSERT_NE(scaler, nullptr);
  EXPECT_EQ(scaler->id, "accelerate-fp16-grad-scaler");
  EXPECT_EQ(scaler->drops_operations, 7u);
  // Only a comprehension's own suffix: a function defined inside another
  // (Lightning's convert_tensors_to_scalars.<locals>.to_item) is itself.
  std::vector<KnownSite> table = parsed_table(R"([
    {"id": "outer", "library": "l", "file": "l/a.py", "function": "outer", "fix": "x", "checked": {"l": "1"}}])");
  ASSERT_EQ(table.size(), 1u);
  site.python = {{kSite + "l/a.py", 3, "outer.<locals>.inner"}};
  site.sync.source = "";
  EXPECT_EQ(match_known_site(table, site, Operation::kItem, Category::kHiddenSync), nullptr);
  site.python = {{kSite + "l/a.py", 3, "outer.<locals>.<listcomp>"}};
  EXPECT_NE(match_known_site(table, site, Operation::kItem, Category::kHiddenSync), nullptr);
}

TEST(KnownSites, ACopyOnTheComputeStreamTakesNoSyncSitesFix) {
  // Accelerate's send_to_device: its blocking copy is a known sync site
  // (non_blocking=True removes the wait); the same copy queued on the
  // compute stream is a default-stream finding, with no operation, which
  // non_blocking does not move to another stream.
  const std::vector<KnownSite> table = parsed_table(R"([
    {"id": "send", "library": "accelerate", "file": "accelerate/utils/operations.py", "function": "send_to_device",
     "operations": ["copy-to-device-pinned"], "fix": "non_blocking=True", "checked": {"accelerate": "1.15.0"}}])");
  ASSERT_EQ(table.size(), 1u);
  SiteFrames site;
  site.python = {{kSite + "accelerate/utils/operations.py", 160, "send_to_device"}, {"/home/me/train.py", 61, "main"}};
  site.has_sync = true;
  site.sync_python_index = 0;
  EXPECT_NE(match_known_site(table, site, Operation::kCopyToDevicePinned, Category::kHiddenSync), nullptr);
  EXPECT_NE(match_known_site(table, site, Operation::kUnknown, Category::kHiddenSync), nullptr)
      << "an unknown operation (a stripped build) still matches a sync site";
  EXPECT_EQ(match_known_site(table, site, Operation::kUnknown, Category::kDefaultStream), nullptr);
}

TEST(FindingMerge, StepsAreCountedOnceAndPeriodsRecomputed) {
  Finding a, b;
  a.count = 4;
  a.per_step = 0.4;
  a.step_share = 0.01;
  a.steps_with = 2;
  a.step_counts = {{0, 2, 10}, {5, 2, 10}};
  b.count = 2;
  b.per_step = 0.2;
  b.step_share = 0.02;
  b.steps_with = 2;
  b.step_counts = {{5, 1, 5}, {10, 1, 5}};
  merge_finding(a, b, 10);
  EXPECT_EQ(a.count, 6u);
  EXPECT_DOUBLE_EQ(a.per_step, 0.6);
  EXPECT_DOUBLE_EQ(a.step_share, 0.03);
  EXPECT_EQ(a.steps_with, 3u);  // steps 0, 5, 10
  ASSERT_EQ(a.step_counts.size(), 3u);
  EXPECT_EQ(a.step_counts[1].count, 3u);
  EXPECT_EQ(a.every_n_steps, 5u);
}

}  // namespace
}  // namespace syncscope::testing
