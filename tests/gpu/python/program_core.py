"""Puts a training program's own thread on one core, for the what-if
check's timing and recordings (check_whatif.py --pin-program-core):
step_interleaver.py pins both twins' threads, step_timer.py its main
thread, pinned_program.py a recorded program's main thread.

The core is STEP_INTERLEAVER_CORE (none: nothing changes). Only the calling
thread is pinned (Linux: pid 0 is the calling thread), so autograd's, the
recorder's and CUPTI's threads keep the cores the process was given. A
process forked from the pinned thread (a DataLoader worker, under the fork
start method) gets those cores back: it would otherwise inherit the one
core and contend with the program for it. A process started by exec from
the pinned thread (spawn, a subprocess) inherits the core.
"""
import os


def pin_this_thread():
    """Pins the calling thread to STEP_INTERLEAVER_CORE, if set; the cores it had: its forked children's."""
    core = os.environ.get("STEP_INTERLEAVER_CORE")
    if not core:
        return
    allowed = os.sched_getaffinity(0)
    os.register_at_fork(after_in_child=lambda: os.sched_setaffinity(0, allowed))
    os.sched_setaffinity(0, {int(core)})
