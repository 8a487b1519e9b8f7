// The replay of a recorded host thread against the GPU streams it feeds
// (issue 27, docs/what-if.md): the model the what-if predictions run on.
//
// A Program is the thread's calls in order, each with the host's own work
// before it (kept as measured), the host time of the call itself without
// any waiting, and for work it enqueues, the stream and the GPU time that
// work takes. replay() plays it forward: enqueued work starts on its stream
// when the stream is free, what it waits for is done and it has been
// launched; a sync holds the host until what it waits for is done. The
// recorded program replayed must reproduce its measured steps (checked,
// and the error reported); a Program changed by a what-if (what_if.h)
// replayed gives the step time the change would give.
//
// A pure function, like the detectors: no trace, no clock, no I/O.
#pragma once

#include <cstdint>
#include <vector>

namespace syncscope::whatif {

enum class OpKind : uint8_t {
  kEnqueue,       // asynchronous work on a stream: a launch, an async copy or memset
  kStreamSync,    // the host waits for a stream's work (cudaStreamSynchronize)
  kDeviceSync,    // the host waits for every stream (cudaDeviceSynchronize, the sync inside cudaFree)
  kEventRecord,   // marks the point a stream has reached (cudaEventRecord)
  kEventSync,     // the host waits for a recorded event (cudaEventSynchronize)
  kStreamWait,    // a stream waits for a recorded event (cudaStreamWaitEvent)
  kBlockingCopy,  // work on a stream the host waits for: a synchronous or pageable copy, a read-back
  kHostOnly,      // a call that touches no stream (allocation, query): host time only
};

// The legacy default stream (stream handle 0): work on it waits for work on
// every blocking stream before it, and work on blocking streams waits for
// it. Streams created with cudaStreamNonBlocking are listed in
// Program::non_blocking_streams.
inline constexpr uint64_t kLegacyStream = 0;

struct Op {
  OpKind kind = OpKind::kHostOnly;
  uint64_t host_before_ns = 0;  // the host's own work since the previous op's call returned
  uint64_t call_ns = 0;         // host time inside the call, without waiting for the GPU
  uint64_t stream = kLegacyStream;
  uint64_t event = 0;   // kEventRecord, kEventSync, kStreamWait
  uint64_t gpu_ns = 0;  // GPU time of the work it enqueues (kEnqueue, kBlockingCopy)
  uint32_t step = 0;    // the step it belongs to (steps are numbered from 0, in order)
  uint32_t site = 0;    // the finding site that made it (0: none), for what-ifs
  // As recorded: how long the host waited inside the call (the call took
  // call_ns + waited_ns). Used to estimate GPU times without a GPU timeline
  // (gpu_estimate.h); replay() computes its own waits.
  uint64_t waited_ns = 0;
  // The call has host work of its own besides its wait: a cudaFree unmaps
  // memory after its device-wide sync, a pageable copy stages through a
  // pinned buffer. Its recorded time that the wait does not explain is that
  // work (with_unexplained_time_in_calls). Not so for a plain sync, whose
  // unexplained time is the model's error about the GPU, which a fix that
  // drops the sync would not give back.
  bool works_besides_waiting = false;
  // That work, after the wait. Set by with_unexplained_time_in_calls(); kept
  // when a fix turns the call into host-only work, gone when it removes the
  // call or queues its copy from pinned memory (pinned-async: the staging
  // goes with the wait).
  uint64_t after_ns = 0;
  // As recorded by a full GPU timeline: when the GPU finished the work this
  // op queued, from the program's start (0: not timed). Read only by
  // recorded_step_ends(), so that a recorded step ends, as a replayed one
  // does, when its GPU work is done too (prediction.h).
  uint64_t recorded_gpu_end_ns = 0;
  // Of host_before_ns, the recorder's own work before the call: capturing
  // its stack (a sync, a copy, an allocation), the process's mean capture
  // (trace_program.h). Replayed as recorded, but no fix removes it: it is
  // not the program's work, and counting it would predict the recorder's
  // cost as the fix's saving.
  uint64_t recorder_ns = 0;
};

struct Program {
  std::vector<Op> ops;
  // Host-to-GPU delay between a launch returning and its work being able to
  // start, and how many operations a stream may hold queued before a launch
  // blocks (the driver's queue; past it the host waits as if it synced).
  uint64_t launch_latency_ns = 5000;
  uint32_t queue_depth = 1024;
  std::vector<uint64_t> non_blocking_streams;  // created with cudaStreamNonBlocking: no legacy-stream ordering
};

struct Replay {
  // When each step is done, from the start of the first op: the later of the
  // host returning from the step's last op and the GPU finishing the work
  // the step queued (steps with no op repeat the previous end). A host that
  // runs ahead of the GPU does not make steps shorter than the GPU's: in a
  // long run its queue fills and it runs at the GPU's pace.
  std::vector<uint64_t> step_end_ns;
  std::vector<uint64_t> host_end_ns;  // per step: the host returning from its last op, alone
  std::vector<uint64_t> waited_ns;    // per op: how long the host waited inside it
  uint64_t host_blocked_ns = 0;       // time the host spent waiting for the GPU, in all
  uint64_t gpu_end_ns = 0;            // when the last GPU work finished

  // The mean step over steps [first, last): (end of last-1 - end of first-1) / count.
  double mean_step_ns(uint32_t first, uint32_t last) const;
};

Replay replay(const Program& program);

// The program with the recorded time of each call that works besides
// waiting (Op::works_besides_waiting) that its replayed wait does not
// explain moved into the call as host work (Op::after_ns): a cudaFree that
// took longer than the GPU work it waited for kept the host busy unmapping,
// and would without the wait. The result replays each such call as long as
// recorded.
Program with_unexplained_time_in_calls(const Program& program);

}  // namespace syncscope::whatif
