"""Measures training programs' mean step, interleaved in one process, for the
what-if check (tests/gpu/check_whatif.py):

    step_timer.py RESULT.json ROUNDS "SCRIPT ARGS..." ["SCRIPT ARGS..." ...]

Each round runs every program once, in turn (the order rotates from round to
round), after a first round that warms up and is not counted, in this one
Python process: torch is imported and CUDA started once,
and what differs from one process to the next (the cores, the clocks, the
memory layout; ±15% on small host-bound loops on the GPU machines) falls on
all programs alike. A broken program and its fixed twin are then compared
within one process, as the recorder's toggle mode compares recording and
dormant blocks (tests/gpu/harness_overhead.py).

A step is an optimizer step (torch's global optimizer step hook, which fires
under plain loops, Lightning, Accelerate and the Trainer alike). The GPU is
drained at step FROM and at step TO (torch.cuda.synchronize), and the mean
step is the time between the two divided by TO - FROM: what the steps cost
end to end, the GPU's share included, even where the host runs ahead of the
GPU between syncs, and evaluation, checkpoints and logging between the two
steps included, as they are in the recorded steps. FROM and TO default to a
fifth and 90% of the step count given as the script's first argument
(STEP_TIMER_FROM / STEP_TIMER_TO override). The two syncs are the only
change to the programs.

STEP_TIMER_WARMUP=0 leaves the warm-up round out: each program's counted
run is then the first in its process, as in a recording (`syncscope run`
starts a fresh process). A second run of a program in one process can
behave differently: empty_cache.py's second run frees and allocates two
blocks a step where its first frees and allocates one (the allocator's
state from the first run), and is 20% slower.

RESULT.json: {"programs": [...], "mean_step_us": [[round 0, round 1, ...] per
program], "errors": [...]}.
"""
import gc
import json
import os
import runpy
import shlex
import sys
import time

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

from program_core import pin_this_thread

state = {"seen": 0, "t_first": None, "t_last": None, "first": 0, "last": 0}


def on_step(optimizer, args, kwargs):
    state["seen"] += 1
    if state["seen"] in (state["first"], state["last"]):
        torch.cuda.synchronize()
        state["t_first" if state["seen"] == state["first"] else "t_last"] = time.perf_counter()


def step_range(args):
    steps = int(args[0]) if args and args[0].isdigit() else 0
    first = int(os.environ.get("STEP_TIMER_FROM", steps // 5))
    last = int(os.environ.get("STEP_TIMER_TO", steps - max(2, steps // 10)))
    if not 0 < first < last:
        sys.exit(f"{os.path.basename(sys.argv[0])}: bad step range {first}..{last} (give the step count as the script's first argument)")
    return first, last


def run_program(script, args):
    """The program's mean step in µs, or an error text."""
    state.update(seen=0, t_first=None, t_last=None)
    state["first"], state["last"] = step_range(args)
    here = os.getcwd()
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script] + args
    sys.path.insert(0, os.path.dirname(script))
    os.chdir(os.path.dirname(script))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            return f"exit {e.code}"
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        os.chdir(here)
        gc.collect()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()  # each run starts from the same allocator state
        if "accelerate.state" in sys.modules:  # Accelerate's process-wide state, set once per process otherwise
            sys.modules["accelerate.state"].AcceleratorState._reset_state(reset_partial_state=True)
    if state["t_last"] is None:
        return f"reached {state['seen']} optimizer steps of {state['last']}"
    return (state["t_last"] - state["t_first"]) / (state["last"] - state["first"]) * 1e6


def main():
    result_path, rounds, programs = sys.argv[1], int(sys.argv[2]), [shlex.split(p) for p in sys.argv[3:]]
    programs = [(os.path.abspath(p[0]), p[1:]) for p in programs]
    pin_this_thread()  # with STEP_INTERLEAVER_CORE (check_whatif.py --pin-program-core), as the recording's
    register_optimizer_step_post_hook(on_step)
    means = [[] for _ in programs]
    errors = []
    # Round -1 warms up (cuBLAS handles, the allocator's pools, compiled kernels, Python's caches) and is
    # not counted: otherwise whichever program runs first pays for it.
    first_round = -1 if os.environ.get("STEP_TIMER_WARMUP", "1") != "0" else 0
    for round_ in range(first_round, rounds):
        turn = round_ % len(programs)
        for i in list(range(turn, len(programs))) + list(range(turn)):
            measured = run_program(*programs[i])
            if round_ < 0:
                continue
            if isinstance(measured, str):
                errors.append(f"{os.path.basename(programs[i][0])} round {round_}: {measured}")
            else:
                means[i].append(measured)
    with open(result_path, "w") as out:
        json.dump({"programs": [[p] + a for p, a in programs], "mean_step_us": means, "errors": errors}, out)


if __name__ == "__main__":
    main()
