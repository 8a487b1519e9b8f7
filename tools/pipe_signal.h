// SIGPIPE in the launcher: `syncscope run ... | head -1` must still exit
// with the command's status, not die of SIGPIPE (141) when the report is
// written to a reader that has gone. syncscope ignores SIGPIPE for itself
// (a write then fails with EPIPE and is dropped) and gives the command the
// disposition syncscope was started with.
#pragma once

namespace syncscope {

// At start-up: remembers the inherited disposition, then ignores SIGPIPE.
void ignore_sigpipe();
// In the forked child, before exec: the inherited disposition again.
void restore_sigpipe();

}  // namespace syncscope
