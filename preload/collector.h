// The collector thread: drains every thread's ring every flush interval,
// converts ticks to nanoseconds, publishes new stacks and the modules their
// PCs fall in, and appends it all to this process's trace file. Started
// lazily by the first recorded call, so a process that never touches CUDA
// (a DataLoader worker) leaves no file and no thread.
#pragma once

namespace syncscope::preload {

// Starts the collector if this process has none yet (cheap when it has).
void ensure_collector_running();
// Final drain, end record, close. Called once at exit.
void collector_shutdown();
// fork(2) handlers: pause draining across fork; the child starts afresh.
void collector_before_fork();
void collector_after_fork_parent();
void collector_after_fork_child();

}  // namespace syncscope::preload
