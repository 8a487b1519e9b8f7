// The control endpoint of a dormant or attached process: a Unix socket in
// the abstract namespace, "@syncscope.<pid>", served by one thread that
// blocks in accept(2) and never receives the target's signals. Only a peer
// with the process's own user id (SO_PEERCRED) is served. One line per
// request, one line per reply, in the control protocol
// (trace/control_protocol.h, docs/control-protocol.md): hello, start, flush,
// stop. A session belongs to its connection: if the peer goes away without
// "stop" (attach killed), the session is stopped as if it had sent it.
#pragma once

namespace syncscope::preload {

// Binds the socket and starts the thread; a warning (not a failure of the
// target) if either cannot be had.
void control_endpoint_start();
// Closes the socket and joins the thread (syncscope.watch() in a process
// whose recorder Python loaded: no thread of the recorder may outlive a
// watch). True when no endpoint is left; false when its thread, busy with a
// client, did not end within `timeout_ms` (it ends when that client goes).
bool control_endpoint_stop(int timeout_ms);
// fork(2) child: the thread does not exist there; close the inherited socket.
void control_endpoint_after_fork_child();

}  // namespace syncscope::preload
