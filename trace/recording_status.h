// The recorder's status channel: how a recorded process tells `syncscope
// run` what went wrong with its recording when the trace itself cannot say
// so (an unwritable or full output directory, a trace deleted mid-run).
//
// `syncscope run` creates an in-memory file (memfd: no disk, so a full disk
// cannot silence it; never a pipe, whose full buffer would drop lines and
// whose closed read end would SIGPIPE the target), opens it O_APPEND, and
// hands it to the command as an inherited descriptor named by
//
//   SYNCSCOPE_STATUS_FD=FD:LAUNCHER_PID:DEV:INO      (env::kStatusFd)
//
// DEV and INO identify the file, so a process that closed FD (and maybe
// reused the number) is never written through it: it reopens
// /proc/LAUNCHER_PID/fd/FD instead, or stays silent. Each process appends
// whole lines, each in one write(2) (O_APPEND: lines never interleave):
//
//   <pid> <kind>[ <detail>]\n
//
// The launcher reads the file once the command has exited.
#pragma once

namespace syncscope {

// Kinds. All but kStatusTraceOpened are problems: the recording is incomplete.
inline constexpr const char* kStatusTraceOpened = "trace-opened";           // detail: path
inline constexpr const char* kStatusTraceOpenFailed = "trace-open-failed";  // detail: error, naming the path
inline constexpr const char* kStatusWriteFailed = "write-failed";           // detail: "path: error"
inline constexpr const char* kStatusTraceRemoved = "trace-removed";         // detail: path (unlinked while open)
// detail: the count, alone (rings were full) or followed by " (reasons)"
inline constexpr const char* kStatusEventsDropped = "events-dropped";
inline constexpr const char* kStatusRecorderFailed = "recorder-failed";     // detail: why nothing was recorded
inline constexpr const char* kStatusFlushTimeout = "flush-timeout";         // detail: what may be missing

// Kinds the launcher and the report add themselves (never on the channel).
inline constexpr const char* kStatusDirectoryRemoved = "directory-removed";  // detail: the output directory
inline constexpr const char* kStatusOutputUnusable = "output-dir-unusable";  // detail: error (checked up front)
inline constexpr const char* kStatusTraceUnreadable = "trace-unreadable";    // detail: reader's error
inline constexpr const char* kStatusMalformed = "malformed-status";          // detail: the line
// detail: why the trace did not end cleanly (the reader's truncation: no end
// record, a record cut short or corrupt)
inline constexpr const char* kStatusTraceIncomplete = "trace-incomplete";
// `attach`: a session that recorded no call at all; detail: how long it
// lasted and the CPU time the process used meanwhile. Whether the process
// was idle or its calls went unseen, the recording cannot vouch for them.
inline constexpr const char* kStatusSessionEmpty = "session-empty";

// Lines one process image writes at most: a recorder in a loop of failures
// must not fill memory.
inline constexpr int kMaxStatusLinesPerProcess = 32;

}  // namespace syncscope
