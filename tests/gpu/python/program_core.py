"""Puts a training program's own thread on one core, for the what-if
check's timing and recordings (check_whatif.py --pin-program-core):
step_interleaver.py pins both twins' threads, step_timer.py its main
thread, pinned_program.py a recorded program's main thread.

The core is STEP_INTERLEAVER_CORE (none: nothing changes). Only the calling
thread is pinned (Linux: pid 0 is the calling thread). Every other thread
of the process keeps, or gets back, the cores the process was given:
- a thread started by a pinned one inherits its one core (Linux copies the
  creator's mask): autograd's device threads, started at the first
  backward(), DataLoader's pin-memory thread, the CUDA driver's. A watcher thread
  gives those the process's cores back within WATCH_S of their start, so
  that what works beside the program (the pin-memory thread) does not
  take its core, and a hand-over to autograd's thread crosses cores as in
  an unpinned run;
- a process forked from a pinned thread (a DataLoader worker, under the
  fork start method) gets them back in its at-fork hook;
- a process started by exec from a pinned thread (spawn, a subprocess)
  inherits the one core.
"""
import os
import threading
import time

WATCH_S = 0.2  # how often the watcher looks for threads left on the program's core

_pinned = set()  # native ids of the pinned program threads
_lock = threading.Lock()
_watcher = []


def free_other_threads(core, allowed):
    """Gives every thread of this process on the one core that is not a pinned program thread the cores back."""
    try:
        tids = [int(name) for name in os.listdir("/proc/self/task")]
    except OSError:
        return
    for tid in tids:
        if tid in _pinned:
            continue
        try:
            if os.sched_getaffinity(tid) == {core}:
                os.sched_setaffinity(tid, allowed)
        except OSError:  # it ended meanwhile
            pass


def _watch(core, allowed):
    while True:
        with _lock:
            free_other_threads(core, allowed)
        time.sleep(WATCH_S)


def pin_this_thread():
    """Pins the calling thread to STEP_INTERLEAVER_CORE, if set; the cores it had: every other thread's, and its
    forked children's."""
    core = os.environ.get("STEP_INTERLEAVER_CORE")
    if not core:
        return
    core = int(core)
    allowed = os.sched_getaffinity(0)
    os.register_at_fork(after_in_child=lambda: os.sched_setaffinity(0, allowed))
    with _lock:
        _pinned.add(threading.get_native_id())
        if not _watcher:  # started before this thread is pinned: it keeps the cores it inherits
            watcher = threading.Thread(target=_watch, args=(core, allowed), name="program-core-watch", daemon=True)
            watcher.start()
            _watcher.append(watcher)
        os.sched_setaffinity(0, {core})
