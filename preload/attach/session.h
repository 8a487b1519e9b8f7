// Recording sessions of a dormant or attached process, driven by the
// control endpoint (control_endpoint.h) or, from inside the process, by
// syncscope_control (in_process.cpp, Python's syncscope.watch()): start
// recording into a directory, flush, stop. Between sessions the hooks pass
// straight through (one relaxed load) and, in a process attached by
// injection, no import slot points at them any more. The functions are
// serialised among themselves: the endpoint's thread and the process's own
// callers may use them at once.
#pragma once

#include <string>

#include "trace/control_protocol.h"

namespace syncscope::preload {

// Each returns its reply (trace/control_protocol.h): ok, or error with the
// reason.
control::Message session_start(const std::string& output_dir, bool gpu_timeline = false,
                               const std::string& gpu_sampling = "");
// In a process recorded since it started (plain `syncscope run`), flush
// waits for that recording: reachable only in-process (such a process has
// no endpoint).
control::Message session_flush();
control::Message session_stop();
bool session_active();
// hello: version, pid, how the library was loaded, whether recording, and
// the trace being written.
control::Message session_describe();
// One request, whichever command: what the endpoint and syncscope_control
// both answer with.
control::Message session_handle(const control::Request& request);
// fork(2) child: a request another thread was serving at the fork never
// finishes there.
void session_after_fork_child();

}  // namespace syncscope::preload
