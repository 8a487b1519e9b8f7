// Evidence for `syncscope run` that outlives an unusable output directory:
// one line on the launcher's status channel (trace/recording_status.h) when
// the recording fails or loses data. Only the collector's life cycle calls
// this (never a hook): it costs a few system calls.
#pragma once

namespace syncscope::preload {

// Appends "<pid> <kind> <detail>\n" in one write(2). Does nothing without a
// channel (LD_PRELOAD set by hand, a dormant run) or once this process has
// written kMaxStatusLinesPerProcess lines. Never blocks (an in-memory file),
// never allocates, never closes a descriptor it did not open itself, and
// writes only to a descriptor whose device and inode are the channel's.
// Safe in a forked child and on any thread.
void report_status(const char* kind, const char* detail_format, ...) __attribute__((format(printf, 2, 3)));

// A forked child is a new process: it gets its own line budget.
void status_after_fork_child();

}  // namespace syncscope::preload
