// A PyTorch job's report put together by hand, so that what the detectors
// find does not move it: steady findings with PyTorch's native frames
// (tests/unit/report/pytorch_frames.h), a read-back on autograd's thread
// attributed to the line that waited for it, a site every 10 steps, a
// second phase (eval), warm-up and teardown findings. The layout, JSON and
// CI format tests render it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "report/report_model.h"
#include "tests/unit/report/pytorch_frames.h"
#include "tests/unit/report/report_test_util.h"

namespace syncscope::testing {

inline const std::string kGolden = std::string(SYNCSCOPE_SOURCE_DIR) + "/tests/unit/report/golden";
inline const std::string kTorch = "/venv/lib/python3.10/site-packages/torch/";

inline PythonSiteFrame py(const std::string& file, uint32_t line, const std::string& function) {
  return PythonSiteFrame{file, line, function};
}

// The frames of train_loop.py's call chain, innermost first, from `line` in train().
inline std::vector<PythonSiteFrame> script_frames(uint32_t line) {
  return {py("train_loop.py", line, "train"), py("train_loop.py", 25, "main"), py("train_loop.py", 29, "<module>")};
}

inline UserFrame user_line(const PythonSiteFrame& f) {
  // A user's own line: no library.
  return UserFrame{.file = f.file,
                   .line = f.line,
                   .function = f.function,
                   .source = source_line(kGolden + "/" + f.file, f.line),
                   .python = true,
                   .library = ""};
}

inline SiteFrames python_site(std::vector<PythonSiteFrame> python, std::vector<Frame> native) {
  SiteFrames site;
  site.python = std::move(python);
  site.native = std::move(native);
  for (const PythonSiteFrame& f : site.python) {
    if (is_library_python_file(f.file)) continue;
    site.has_user = true;
    site.user = user_line(f);
    break;
  }
  return site;
}

inline Finding finding(Category category, Phase phase, const std::string& api_sequence, uint64_t count, double per_step,
                       double blocked_us_per_step, double share, const std::string& hint) {
  Finding f;
  f.category = category;
  f.phase = phase;
  f.api_sequence = api_sequence;
  f.api = api_sequence.substr(api_sequence.rfind('+') + 1);
  f.count = count;
  f.per_step = per_step;
  f.blocked_ns_per_step = blocked_us_per_step * 1e3;
  f.host_blocked_ns = static_cast<uint64_t>(count * (per_step > 0 ? blocked_us_per_step * 1e3 / per_step : 20e3));
  f.step_share = share;
  f.hint = hint;
  f.tid = 4242;
  return f;
}

inline const char* kReadBackHint =
    "a device value is read on the host (.item(), print(tensor), if tensor:, bool(), nonzero, masked indexing, "
    ".cpu()): keep it on the GPU and read it every N steps, or copy it non_blocking into pinned memory and read it a "
    "step later";

struct JobFixture {
  ProcessTrace trace;
  Report report;

  JobFixture() {
    trace.header.pid = 4242;
    trace.complete = true;
    trace.process_info = {{"argv", "python3 train_loop.py"}, {"cuda_runtime", "real"}, {"cwd", kGolden}};
    trace.thread_names = {{4242, "python3"}, {4260, "pt_autograd_0"}};
    trace.python_code[1] = {"train_loop.py", "train", 6};
    trace.events.push_back(event(ApiId::cudaStreamSynchronize, 1000, 500000, 1));

    ProcessReport p;
    p.trace = &trace;
    p.symbolizer = std::make_shared<Symbolizer>(trace);
    p.summary.events = 61234;
    p.summary.launches = 48211;
    p.summary.wall_ns = 412'000'000;
    p.summary.host_ns_in_cuda = 96'400'000;
    p.span = {true, 1000, 501000};  // the one event above
    p.threads = {4242};
    ApiStats sync;
    sync.api = static_cast<uint16_t>(ApiId::cudaStreamSynchronize);
    sync.calls = 262;
    sync.total_ns = 74'000'000;
    sync.max_ns = 2'100'000;
    p.summary.apis = {sync};

    Analysis& a = p.analysis;
    a.steps.detected = true;
    a.steps.steps = 118;
    a.steps.period_calls = 409;
    a.steps.step_ns = 3.1e6;
    a.blocked_ns_per_step = 655e3;
    PhaseInfo train{"train", StepSource::kOptimizerStep, 118, 409, 3.1e6, 0, 0, 2, 9};
    PhaseInfo eval{"eval", StepSource::kPattern, 12, 40, 8.1e6, 0, 0, 0, 0};
    a.phases = {train, eval};
    p.phase_markers = {user_line(py("train_loop.py", 14, "train")), std::nullopt};

    // 1. loss.item() every step.
    ReportedFinding item;
    item.finding = finding(Category::kHiddenSync, Phase::kSteady, "cudaMemcpyAsync(D2H)+cudaStreamSynchronize", 118,
                           1.0, 520, 0.168, kReadBackHint);
    item.finding.phase_index = 0;
    item.finding.steps_with = 118;
    item.finding.bytes = 472;
    item.site = python_site(script_frames(15), item_stack());
    // 2. embedding's backward reads back on pt_autograd_0 while the main thread waits in loss.backward().
    ReportedFinding backward;
    backward.finding = finding(Category::kHiddenSync, Phase::kSteady, "cudaMemcpyAsync(D2H)+cudaStreamSynchronize", 118,
                               1.0, 95, 0.031, kReadBackHint);
    backward.finding.tid = 4260;
    backward.finding.phase_index = 0;
    backward.finding.steps_with = 118;
    backward.finding.waiter_stack_id = 7;
    backward.finding.waiter_tid = 4242;
    backward.site.native = embedding_backward_stack();
    backward.site.waiter_tid = 4242;
    backward.site.waiter_python = script_frames(13);
    backward.site.has_user = true;
    backward.site.user = user_line(backward.site.waiter_python[0]);
    backward.site.user_from_waiter = true;
    // 3. print(f"... {loss}") every 10 steps, inside torch's tensor formatting.
    ReportedFinding print;
    print.finding = finding(Category::kHiddenSync, Phase::kSteady, "cudaMemcpyAsync(D2H)+cudaStreamSynchronize", 12,
                            0.1, 6.1, 0.002, kReadBackHint);
    print.finding.phase_index = 0;
    print.finding.steps_with = 12;
    print.finding.every_n_steps = 10;
    std::vector<PythonSiteFrame> print_frames = {py(kTorch + "_tensor_str.py", 142, "_tensor_str_with_formatter"),
                                                 py(kTorch + "_tensor.py", 1032, "__format__")};
    for (const PythonSiteFrame& f : script_frames(17)) print_frames.push_back(f);
    print.site = python_site(print_frames, item_stack());
    // 4. the eval pass copies batches from pageable memory, in 9 of its 12 steps.
    ReportedFinding eval_copy;
    eval_copy.finding = finding(Category::kPageableCopy, Phase::kSteady, "cudaMemcpyAsync(H2D)", 9, 0.75, 11, 0.001,
                                "pin the host memory (pin_memory=True in the DataLoader) so the copy can be async");
    eval_copy.finding.phase_index = 1;
    eval_copy.finding.steps_with = 9;
    eval_copy.finding.bytes = 9 * 8192;
    eval_copy.site = python_site(script_frames(9),
                                 {frame("at::native::copy_(at::Tensor&, at::Tensor const&, bool)", "libtorch_cpu.so")});
    p.findings = {item, backward, print, eval_copy};

    // Warm-up and teardown: the same lines once or twice, model setup, an unknown site.
    auto outside = [&](Category c, Phase phase, const std::string& apis, uint64_t count, SiteFrames site) {
      ReportedFinding r;
      r.finding = finding(c, phase, apis, count, 0, 0, 0, "");
      r.site = std::move(site);
      p.findings.push_back(std::move(r));
    };
    outside(Category::kHiddenSync, Phase::kWarmup, "cudaMemcpyAsync(D2H)+cudaStreamSynchronize", 2,
            python_site(script_frames(15), {}));
    outside(Category::kHiddenSync, Phase::kTeardown, "cudaMemcpyAsync(D2H)+cudaStreamSynchronize", 1,
            python_site(script_frames(15), {}));
    outside(Category::kAllocatorChurn, Phase::kWarmup, "cudaMalloc", 14,
            python_site({py(kTorch + "nn/modules/module.py", 1160, "convert"), py("train_loop.py", 22, "main")}, {}));
    outside(Category::kHiddenSync, Phase::kWarmup, "cudaDeviceSynchronize", 3, SiteFrames{});
    outside(Category::kPageableCopy, Phase::kWarmup, "cudaMemcpy(H2D)", 40, python_site(script_frames(9), {}));
    report.processes.push_back(std::move(p));
  }
};

}  // namespace syncscope::testing
