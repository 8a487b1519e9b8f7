"""What syncscope costs real training harnesses (issue 25), on a GPU machine.

    python3 tests/gpu/harness_overhead.py BUNDLE OUT [--rounds N]
        [--harnesses hf,lightning,dataloader] [--modes plain,default,dormant]

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
  disabled   syncscope run with SYNCSCOPE_DISABLE=1 (every hook passes through)
  full       syncscope run --detail full --no-report
  nostacks   default with SYNCSCOPE_STACKS=0 (no stacks, native or Python)
  nopython   default with SYNCSCOPE_PYTHON=0 (no Python frames)
  nomarkers  default with SYNCSCOPE_STEP_MARKERS=0 (no optimizer/backward hooks)
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
    "disabled": {"SYNCSCOPE_DISABLE": "1"},
}
PARTS = ("wall", "step_ms", "start", "imports", "setup", "train", "exit")


def command_of(mode, bundle, out, harness):
    program = [sys.executable, BENCH, harness]
    if mode == "plain":
        return program
    if mode == "dormant":
        return [f"{bundle}/bin/syncscope", "run", "--dormant", "--"] + program
    extra = ["--detail", "full"] if mode == "full" else []
    return [f"{bundle}/bin/syncscope", "run", "--no-report", "--force", "-o", f"{out}/t-{harness}-{mode}"] + \
        extra + ["--"] + program


def run_once(mode, bundle, out, harness):
    env = dict(os.environ, PYTHONUNBUFFERED="1", **ENV_OF_MODE.get(mode, {}))
    launched = time.time()
    done = subprocess.run(command_of(mode, bundle, out, harness), env=env, capture_output=True, text=True)
    exited = time.time()
    line = next((l for l in done.stdout.splitlines() if l.startswith("harness_bench:")), None)
    if line is None:
        sys.stderr.write(f"{harness}/{mode}: no timing line (exit {done.returncode})\n{done.stderr[-2000:]}\n")
        return None
    marks = dict(field.split("=", 1) for field in line.split()[2:])
    t = {k: float(v) for k, v in marks.items() if k.startswith("t_")}
    return {
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
    args = parser.parse_args()
    bundle = os.path.abspath(args.bundle)
    os.makedirs(args.out, exist_ok=True)
    harnesses, modes = args.harnesses.split(","), args.modes.split(",")
    runs = {(h, m): [] for h in harnesses for m in modes}
    for harness in harnesses:  # caches warmed for every mode alike; not counted
        run_once("plain", bundle, args.out, harness)
    with open(os.path.join(args.out, "runs.log"), "w") as log:
        for round_ in range(args.rounds):
            for harness in harnesses:
                for mode in modes:
                    r = run_once(mode, bundle, args.out, harness)
                    if r is None:
                        continue
                    runs[(harness, mode)].append(r)
                    text = " ".join(f"{p}={r[p]:.3f}" for p in PARTS)
                    print(f"round {round_} {harness} {mode}: {text}", flush=True)
                    log.write(f"{round_} {harness} {mode} {text}\n")
    table = {}
    for harness in harnesses:
        base = {p: statistics.median(r[p] for r in runs[(harness, "plain")]) if runs.get((harness, "plain")) else None
                for p in PARTS}
        for mode in modes:
            rs = runs[(harness, mode)]
            if not rs:
                continue
            row = {}
            for p in PARTS:
                values = [r[p] for r in rs]
                med = statistics.median(values)
                row[p] = {"median": med, "min": min(values), "max": max(values), "n": len(values),
                          "ratio": med / base[p] if base[p] else None}
            table[f"{harness}/{mode}"] = row
            cells = []
            for p in PARTS:
                c = row[p]
                ratio = f" x{c['ratio']:.3f}" if c["ratio"] and p in ("wall", "train", "step_ms") else ""
                cells.append(f"{p} {c['median']:.2f}{ratio} ({c['min']:.2f}-{c['max']:.2f})")
            print(f"{harness:10s} {mode:9s} " + " | ".join(cells), flush=True)
    with open(os.path.join(args.out, "harness_overhead.json"), "w") as f:
        json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
