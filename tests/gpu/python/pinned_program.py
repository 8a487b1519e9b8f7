"""Runs a training program as __main__ with its main thread on one core, for
the what-if check's recordings (tests/gpu/check_whatif.py --pin-program-core):

    pinned_program.py SCRIPT ARGS...

The core is STEP_INTERLEAVER_CORE, the one step_interleaver.py puts both
twins' threads on, so that the recording is made at the pace the twins are
timed at (program_core.py: only this thread; its forked children get the
process's cores back).
"""
import os
import runpy
import sys

from program_core import pin_this_thread

if len(sys.argv) < 2:
    sys.exit(__doc__)
pin_this_thread()
script = os.path.abspath(sys.argv[1])
sys.argv = [script] + sys.argv[2:]
sys.path.insert(0, os.path.dirname(script))
runpy.run_path(script, run_name="__main__")
