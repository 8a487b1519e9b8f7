// syncscope_optimizer_step: called once per torch.optim optimizer step by the
// post-hook that python/sitecustomize.py registers (through ctypes.PyDLL, so
// with the GIL held: the event's stack carries the `optimizer.step()` line).
// The analysis takes these events as the training loop's step boundaries
// (detectors/segmentation.h). It records like any hooked call, and costs
// nothing when not recording.
#include "preload/call_record.h"
#include "preload/in_hook.h"
#include "preload/recorder.h"
#include "preload/thread_state.h"

extern "C" __attribute__((visibility("default"))) void syncscope_optimizer_step() {
  using namespace ::syncscope::preload;
  if (!recording() || tls_in_hook) return;
  ThreadState* thread = current_thread_state();
  if (thread == nullptr) return;
  InHookScope in_hook;
  CallRecord r(::syncscope::ApiId::syncscope_optimizer_step, kStack);
  r.begin();
  r.end(thread, 0);
}
