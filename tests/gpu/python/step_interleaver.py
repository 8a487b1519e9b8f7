"""Times two training programs against each other in blocks of steps, in
lockstep, in one process, for the what-if check (tests/gpu/check_whatif.py
--interleave-steps):

    step_interleaver.py RESULT.json BLOCK "SCRIPT ARGS..." "SCRIPT ARGS..."

Why: step_timer.py interleaves whole runs of the twins. On the GPU machines
rounds of one host-bound twin ranged over ±20% within one process (the
host's pace drifts over seconds), so a saving of a few percent could not be
told apart: its 95% interval over 15 rounds spanned 9 to 18 points. Here
the two programs take turns every BLOCK optimizer steps, tens of
milliseconds apart, and what drifts falls on both nearly alike.

How: each program runs in a thread of its own (runpy, as step_timer.py
runs it), and only one runs at a time. torch's global optimizer-step hook
is the baton: after every BLOCK steps of a program, the hook drains the GPU
(torch.cuda.synchronize), stamps the time, and hands over to the other
program, which resumes from its own hook. A block is timed from the resume
to the drain that ends it: BLOCK whole loop iterations (each from after one
optimizer step to after the next), the GPU drained at both ends, as
step_timer.py times a run. The drain costs a program without syncs its GPU
tail once a block (BLOCK 25 on a 1 ms step: under 0.2% of its steps).

Blocks before the step FROM or past TO of a program (a fifth and 90% of
the step count given as its first argument, as step_timer.py) are not
counted. Once one program ends, the other runs on alone, untimed.

Limits: both programs share the interpreter (sys.argv, the working folder,
imported modules, torch's seed and CUDA context): meant for twins that
differ in a line or in arguments read at start-up, run from one folder
(sys.argv is set as each program starts, in its own turn). Programs
that need the main thread (signal.signal raises off it) or start
processes from __main__ do not run here. Lightning registers its signal
handlers only on the main thread (its signal connector checks), and its
Trainer.fit ran here (libraries/lightning_mlp.py on an H200), as did
Hugging Face's trainer.train() (hf_trainer.py, blocks of 50 steps, its
evaluation period) and a torch.compile'd model. Accelerate keeps one
AcceleratorState per process: twins whose Accelerator settings differ
(accelerate_loop.py's fp16 and bf16) fail with "AcceleratorState has
already been initialized".

RESULT.json: {"programs": [...], "block": B, "blocks": [[program index,
µs per step], ... in time order], "errors": [...]}.
"""
import json
import os
import runpy
import shlex
import sys
import threading
import time
import traceback

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

from program_core import pin_this_thread
from step_timer import step_range  # the steps timed: a fifth to 90% of the run, or STEP_TIMER_FROM/TO


class Lockstep:
    """Which program runs, and the blocks timed so far."""

    def __init__(self, ranges, block):
        count = len(ranges)
        self.block = block
        self.turn = 0
        self.done = [False] * count
        self.steps = [0] * count
        self.ranges = ranges  # each program's timed steps (first, last)
        self.resumed = [None] * count
        self.blocks = []  # (program, µs per step), in time order
        self.program_of_thread = {}
        self.cv = threading.Condition()

    def wait_turn(self, me):
        with self.cv:
            self.cv.wait_for(lambda: self.turn == me or all(self.done[i] for i in range(len(self.done)) if i != me))
        self.resumed[me] = time.perf_counter()

    def hand_over(self, me):
        """Passes the baton to the next program still running, if any, and waits for it to come back. Alone, the
        program runs on untimed: there is nothing to compare its blocks with."""
        with self.cv:
            others = [i for i in range(len(self.done)) if i != me and not self.done[i]]
            if not others:
                self.resumed[me] = None
                return
            self.turn = others[0]
            self.cv.notify_all()
        self.wait_turn(me)

    def finish(self, me):
        with self.cv:
            self.done[me] = True
            others = [i for i in range(len(self.done)) if not self.done[i]]
            if others:
                self.turn = others[0]
            self.cv.notify_all()

    def on_step(self, optimizer, args, kwargs):
        me = self.program_of_thread.get(threading.get_ident())
        if me is None:  # an optimizer stepped outside the programs' threads
            return
        self.steps[me] += 1
        if self.steps[me] % self.block:
            return
        torch.cuda.synchronize()
        now = time.perf_counter()
        first, last = self.ranges[me]
        if self.resumed[me] is not None and first <= self.steps[me] - self.block and self.steps[me] <= last:
            self.blocks.append((me, (now - self.resumed[me]) / self.block * 1e6))
        self.hand_over(me)


def run_program(lockstep, me, script, args, errors):
    lockstep.program_of_thread[threading.get_ident()] = me
    # With STEP_INTERLEAVER_CORE both programs' threads run on that core, so that neither keeps a core the
    # other lacks for the whole process (check_whatif.py --pin-program-core).
    pin_this_thread()
    try:
        lockstep.wait_turn(me)
        # Set in the program's own turn: a program reads its arguments as it starts (nanoGPT's configurator), and
        # the twins may differ in them (log_interval=1 against 1000).
        sys.argv = [script] + args
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            errors.append(f"{os.path.basename(script)}: exit {e.code}")
    except BaseException as e:  # noqa: BLE001 -- the other program must go on, and the error be reported
        # Where it was raised and when: a library's error names a line of its own, and one raised at teardown
        # (after the timed steps) leaves the blocks timed.
        frames = traceback.extract_tb(e.__traceback__)
        where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno} {frames[-1].name}" if frames else ""
        errors.append(f"{os.path.basename(script)}: {type(e).__name__}: {e}{where}, after {lockstep.steps[me]} steps")
    finally:
        lockstep.finish(me)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    result_path, block = sys.argv[1], int(sys.argv[2])
    programs = [shlex.split(p) for p in sys.argv[3:]]
    programs = [(os.path.abspath(p[0]), p[1:]) for p in programs]
    if block < 2:
        sys.exit("step_interleaver: BLOCK must be at least 2")
    if os.path.dirname(programs[0][0]) != os.path.dirname(programs[1][0]):
        sys.exit("step_interleaver: both programs must be in the same folder (they share the working folder)")
    lockstep = Lockstep([step_range(args) for _, args in programs], block)
    register_optimizer_step_post_hook(lockstep.on_step)
    script_dir = os.path.dirname(programs[0][0])
    sys.path.insert(0, script_dir)
    os.chdir(script_dir)
    errors = []
    threads = [threading.Thread(target=run_program, args=(lockstep, i, script, args, errors), name=f"program-{i}")
               for i, (script, args) in enumerate(programs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    steps = [len([b for b in lockstep.blocks if b[0] == i]) for i in range(len(programs))]
    errors += [f"{os.path.basename(programs[i][0])}: no block timed" for i in range(len(programs)) if not steps[i]]
    with open(result_path, "w") as out:
        json.dump({"programs": [[p] + a for p, a in programs], "block": block, "blocks": lockstep.blocks,
                   "errors": errors}, out)


if __name__ == "__main__":
    main()
