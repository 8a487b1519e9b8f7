"""What syncscope costs real training harnesses (issue 25), on a GPU machine.

    python3 tests/gpu/harness_overhead.py BUNDLE OUT [--rounds N]
        [--harnesses hf,lightning,dataloader] [--modes plain,default,dormant]
        [--cpus LIST|near-gpu:N] [--toggle-steps hf=10,lightning=20,...]

One plain run of each harness first warms the caches (not counted). Then
each round runs every (harness, mode) once, modes interleaved, so drift in
clocks and temperature falls on all modes alike. Each run is
tests/gpu/python/harness_bench.py, which prints wall-clock marks; with the
launch and exit times measured here, a run's wall time splits into
start (launcher and interpreter), imports, setup, train and exit; step_ms
is the program's median step time in the steady state (ms).

Modes:
  plain      python3 alone
  default    syncscope run --no-report (what a user runs, minus the report)
  dormant    syncscope run --dormant (hooks in, nothing recorded)
  full       syncscope run --detail full --no-report
  nostacks   default with SYNCSCOPE_STACKS=0 (no stacks, native or Python)
  nopython   default with SYNCSCOPE_PYTHON=0 (no Python frames)
  nomarkers  default with SYNCSCOPE_STEP_MARKERS=0 (no optimizer/backward hooks)
  nolines    default with SYNCSCOPE_LINE_EVENTS=0 (no line watch, Python 3.12+)
  alllines   default with SYNCSCOPE_LINE_EVENTS=all (libraries' loops watched too)
  toggle     `syncscope run --dormant`, the program recording every other
             block of steps from inside (harness_bench.py --toggle N, N from
             --toggle-steps, more steps than usual: TOGGLE_LENGTH): recording
             against dormant in one process, free of the differences between
             processes; its own columns give the paired ratio's median and
             quartiles. toggle+nostacks, toggle+nopython: the same with that
             ablation's environment; toggle+timeline: the recorded blocks
             with the full GPU timeline (what a sampling burst costs while
             it is open); toggle+sampled: with 100 ms bursts every second
Every run gets PYTHONHASHSEED=0 (the hash seed changes dict layouts, hence
timings, from one process to the next) and, with --cpus, runs pinned to those
cores (taskset), the same for every mode. The modes' order rotates from round
to round, so no mode always runs first after a pause. Besides the ratio of
medians, `paired` is the median (quartiles) over rounds of each round's
step_ms ratio to that round's plain run.
Prints, per harness and mode, the median (min-max) of the wall time and of
each part, and the ratio of the medians to plain; writes the same table as
JSON to OUT/harness_overhead.json and every run's line to OUT/runs.log.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BENCH = os.path.join(ROOT, "tests", "gpu", "python", "harness_bench.py")
ENV_OF_MODE = {
    "nostacks": {"SYNCSCOPE_STACKS": "0"},
    "nopython": {"SYNCSCOPE_PYTHON": "0"},
    "nomarkers": {"SYNCSCOPE_STEP_MARKERS": "0"},
    "nolines": {"SYNCSCOPE_LINE_EVENTS": "0"},
    "alllines": {"SYNCSCOPE_LINE_EVENTS": "all"},
    # toggle+timeline: the recorded blocks also record the full GPU timeline
    # (harness_bench.py passes it to the recorder's start request): the
    # timeline's cost while a sampling burst is open.
    "timeline": {"HARNESS_TOGGLE_TIMELINE": "full"},
    # toggle+sampled: the recorded blocks sample the timeline, 100 ms bursts
    # every second (the default's 10% duty, with ten times its bursts, so
    # the bursts' start and stop count ten times over); blocks of a second
    # or more (--toggle-steps) for the duty to show.
    "sampled": {"HARNESS_TOGGLE_TIMELINE": "100/1000"},
}
PARTS = ("wall", "step_ms", "start", "imports", "setup", "train", "exit")
TOGGLE_PARTS = ("on_ms", "off_ms", "ratio", "ratio_q1", "ratio_q3", "pairs")
# Steps of a toggled run, and of its blocks: short blocks give many pairs
# (the first 2 steps of each are left out).
TOGGLE_LENGTH = {"hf": 1000, "lightning": 3000, "dataloader": 800, "item": 6000}
DEFAULT_TOGGLE = {"hf": 10, "lightning": 20, "dataloader": 20, "item": 100}


def cores_near_gpu(count):
    """The first `count` cores local to GPU 0 (its PCI device's local_cpulist), as a taskset list."""
    bus = subprocess.run(["nvidia-smi", "--query-gpu=pci.bus_id", "--format=csv,noheader"], capture_output=True,
                         text=True, check=True).stdout.split()[0].lower()
    with open(f"/sys/bus/pci/devices/{bus[4:]}/local_cpulist") as f:  # 00000000:19:00.0 -> 0000:19:00.0
        text = f.read().strip()
    cores = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        cores += range(int(first), int(last or first) + 1)
    return ",".join(map(str, cores[:count]))


def command_of(mode, bundle, out, harness, toggle_steps):
    program = [sys.executable, BENCH, harness]
    if mode == "plain":
        return program
    if mode == "dormant":
        return [f"{bundle}/bin/syncscope", "run", "--dormant", "--"] + program
    if mode.split("+")[0] == "toggle":
        program += [str(TOGGLE_LENGTH[harness]), "--toggle", str(toggle_steps[harness])]
        return [f"{bundle}/bin/syncscope", "run", "--dormant", "--"] + program
    extra = ["--detail", "full"] if mode == "full" else []
    return [f"{bundle}/bin/syncscope", "run", "--no-report", "--force", "-o", f"{out}/t-{harness}-{mode}"] + \
        extra + ["--"] + program


def run_once(mode, bundle, out, harness, cpus=None, toggle_steps=DEFAULT_TOGGLE):
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONHASHSEED="0", **ENV_OF_MODE.get(mode.split("+")[-1], {}))
    command = command_of(mode, bundle, out, harness, toggle_steps)
    if cpus:
        command = ["taskset", "-c", cpus] + command
    launched = time.time()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    exited = time.time()
    line = next((l for l in done.stdout.splitlines() if l.startswith("harness_bench:")), None)
    if line is None:
        sys.stderr.write(f"{harness}/{mode}: no timing line (exit {done.returncode})\n{done.stderr[-2000:]}\n")
        return None
    marks = dict(field.split("=", 1) for field in line.split()[2:])
    t = {k: float(v) for k, v in marks.items() if k.startswith("t_")}
    toggled = {k: float(marks[k]) for k in TOGGLE_PARTS if k in marks}
    return {
        **toggled,
        "wall": exited - launched,
        "start": t["t_start"] - launched,
        "imports": t["t_imported"] - t["t_start"],
        "setup": t["t_train0"] - t["t_imported"],
        "train": t["t_train1"] - t["t_train0"],
        "exit": exited - t["t_train1"],
        "step_ms": float(marks["step_ms"]),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle")
    parser.add_argument("out")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--harnesses", default="hf,lightning,dataloader")
    parser.add_argument("--modes", default="plain,default,dormant")
    parser.add_argument("--cpus", help="pin every run to these cores: taskset's LIST, or near-gpu:N (the first N "
                        "cores local to GPU 0)")
    parser.add_argument("--toggle-steps", default="", help="steps a block in toggle mode, e.g. hf=25,lightning=50")
    parser.add_argument("--toggle-length", default="", help="steps of a toggled run, e.g. hf=3000 (default: TOGGLE_LENGTH)")
    args = parser.parse_args()
    toggle_steps = dict(DEFAULT_TOGGLE, **{k: int(v) for k, v in
                                           (f.split("=") for f in args.toggle_steps.split(",") if f)})
    TOGGLE_LENGTH.update({k: int(v) for k, v in (f.split("=") for f in args.toggle_length.split(",") if f)})
    bundle = os.path.abspath(args.bundle)
    if args.cpus and args.cpus.startswith("near-gpu:"):
        args.cpus = cores_near_gpu(int(args.cpus.split(":")[1]))
        print(f"pinned to cores {args.cpus}", flush=True)
    os.makedirs(args.out, exist_ok=True)
    harnesses, modes = args.harnesses.split(","), args.modes.split(",")
    runs = {(h, m): [] for h in harnesses for m in modes}
    for harness in harnesses:  # caches warmed for every mode alike; not counted
        run_once("plain", bundle, args.out, harness, args.cpus)
    paired = {(h, m): [] for h in harnesses for m in modes}  # each round's step_ms ratio to its plain run
    with open(os.path.join(args.out, "runs.log"), "w") as log:
        for round_ in range(args.rounds):
            for harness in harnesses:
                turn = round_ % len(modes)
                this_round = {}
                for mode in modes[turn:] + modes[:turn]:
                    r = run_once(mode, bundle, args.out, harness, args.cpus, toggle_steps)
                    if r is None:
                        continue
                    runs[(harness, mode)].append(r)
                    this_round[mode] = r
                    text = " ".join(f"{p}={r[p]:.3f}" for p in PARTS + TOGGLE_PARTS if p in r)
                    print(f"round {round_} {harness} {mode}: {text}", flush=True)
                    log.write(f"{round_} {harness} {mode} {text}\n")
                    log.flush()
                if "plain" in this_round:
                    for mode, r in this_round.items():
                        if mode != "plain" and not mode.startswith("toggle"):
                            paired[(harness, mode)].append(r["step_ms"] / this_round["plain"]["step_ms"])
    table = {}
    for harness in harnesses:
        base = {p: statistics.median(r[p] for r in runs[(harness, "plain")]) if runs.get((harness, "plain")) else None
                for p in PARTS}
        for mode in modes:
            rs = runs[(harness, mode)]
            if not rs:
                continue
            row = {}
            for p in PARTS + TOGGLE_PARTS:
                if p not in rs[0]:
                    continue
                values = [r[p] for r in rs if p in r]
                med = statistics.median(values)
                row[p] = {"median": med, "min": min(values), "max": max(values), "n": len(values),
                          "ratio": med / base[p] if base.get(p) else None}
                if p in TOGGLE_PARTS:
                    row[p]["ratio"] = None  # a figure of its own process, not against plain
            ratios = paired.get((harness, mode), [])
            if ratios:
                q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
                row["paired"] = {"median": statistics.median(ratios), "q1": q[0], "q3": q[2], "n": len(ratios)}
            table[f"{harness}/{mode}"] = row
            cells = []
            for p in PARTS + TOGGLE_PARTS:
                if p not in row:
                    continue
                c = row[p]
                ratio = f" x{c['ratio']:.3f}" if c["ratio"] and p in ("wall", "train", "step_ms") else ""
                cells.append(f"{p} {c['median']:.3f}{ratio} ({c['min']:.3f}-{c['max']:.3f})")
            if "paired" in row:
                c = row["paired"]
                cells.append(f"paired x{c['median']:.3f} (q {c['q1']:.3f}-{c['q3']:.3f}, n {c['n']})")
            print(f"{harness:10s} {mode:9s} " + " | ".join(cells), flush=True)
    with open(os.path.join(args.out, "harness_overhead.json"), "w") as f:
        json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
