// The step markers python/sitecustomize.py calls through ctypes.PyDLL (so
// with the GIL held: each event's stack carries the Python line):
//  - syncscope_optimizer_step: once per torch.optim optimizer step, after it;
//  - syncscope_backward_begin: once per outermost torch.autograd.backward()
//    call (loss.backward()), before it runs.
// The analysis takes these events as the training loop's step boundaries
// (segmentation/segmentation.h), and the collector ends every thread's launch
// run at their time (preload/recording/launch_aggregator.h). Each records
// like any hooked call (a rare event, not the launch path) but with its
// Python frames only: its native stack is always ctypes' way into the
// marker. Nothing is recorded when not recording.
#include "preload/recording/call_record.h"
#include "preload/core/in_hook.h"
#include "preload/recording/recorder.h"
#include "preload/recording/thread_state.h"

namespace {

void record_marker(::syncscope::ApiId api) {
  using namespace ::syncscope::preload;
  if (!recording() || tls_in_hook) return;
  ThreadState* thread = current_thread_state();
  if (thread == nullptr) return;
  InHookScope in_hook;
  CallRecord r(api, kPythonOnly);
  r.begin(thread);
  r.end(thread, 0);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void syncscope_optimizer_step() {
  record_marker(::syncscope::ApiId::syncscope_optimizer_step);
}

extern "C" __attribute__((visibility("default"))) void syncscope_backward_begin() {
  record_marker(::syncscope::ApiId::syncscope_backward_begin);
}
