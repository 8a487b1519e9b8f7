"""Runs a training program as __main__ with its main thread on one core, for
the what-if check's recordings (tests/gpu/check_whatif.py --pin-program-core):

    pinned_program.py SCRIPT ARGS...

The core is STEP_INTERLEAVER_CORE, the one step_interleaver.py puts both
twins' threads on, so that the recording is made at the pace the twins are
timed at. Only the calling thread is pinned (Linux: pid 0 is the calling
thread): autograd's, the recorder's and CUPTI's threads stay on the cores
the process was given.
"""
import os
import runpy
import sys

if len(sys.argv) < 2:
    sys.exit(__doc__)
core = os.environ.get("STEP_INTERLEAVER_CORE")
if core:
    os.sched_setaffinity(0, {int(core)})
script = os.path.abspath(sys.argv[1])
sys.argv = [script] + sys.argv[2:]
sys.path.insert(0, os.path.dirname(script))
runpy.run_path(script, run_name="__main__")
