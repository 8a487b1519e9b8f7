// The collector thread: drains every thread's ring every flush interval,
// converts ticks to nanoseconds, publishes new stacks and the modules their
// PCs fall in, and appends it all to this process's trace file. Started
// lazily by the first recorded call, so a process that never touches CUDA
// (a DataLoader worker) leaves no file and no thread.
#pragma once

namespace syncscope::preload {

// Starts the collector if this process has none yet (cheap when it has).
void ensure_collector_running();

// Sessions (dormant or attached processes, preload/attach/session.h). The collector
// then starts only through collector_start_session and, after
// collector_stop_session, waits idle for the next one.
void collector_use_sessions();
// Opens a new trace in config().output_dir and starts the thread. Stale
// events left in the rings from before are discarded. False (with a reason)
// if the process is exiting or the trace cannot be created.
bool collector_start_session(char* error, unsigned long error_size);
// Waits until everything recorded so far is on disk (bounded: 5 s). True
// at once when nothing was recorded yet (a process recording since it
// started whose collector has not started).
bool collector_flush_now();
// Final drain, end record, close, join; then idle. Returns events written.
unsigned long long collector_stop_session();
// A task the collector thread runs after each flush while a session
// records (attach rescans for newly loaded objects); nullptr for none.
void collector_set_periodic(void (*task)());
// The trace file of the current or last session ("" if none).
const char* collector_trace_path();
// Final drain, end record, close. Called once at exit.
void collector_shutdown();
// The same from _exit/_Exit (no atexit handlers, no destructors run): only
// in the process whose collector is running, never in a (v)fork child that
// exits without exec.
void collector_flush_at_exit_call();
// fork(2) handlers: pause draining across fork; the child starts afresh.
void collector_before_fork();
void collector_after_fork_parent();
void collector_after_fork_child();

}  // namespace syncscope::preload
