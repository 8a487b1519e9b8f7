"""Does recording change a program's pace? (issue 27's check, on a GPU)

    tests/gpu/recording_pace.py BUNDLE OUT SCRIPT [ARGS...] [--runs N] [--modes plain,dormant,record,timeline]

check_whatif.py applies a prediction made from a recorded process to steps
measured in a plain one. Where the recorder slows the host's work, a saving
that is exposed host work (a read-back in a GPU-bound loop) is predicted
high by as much. This runs SCRIPT in separate processes, the modes
interleaved and rotating from run to run, each under
tests/gpu/python/step_timer.py (one warm-up round, one counted), pinned to
the cores near the GPU with PYTHONHASHSEED=0, as check_whatif.py runs its
twins:

  plain     python3 alone
  dormant   syncscope run --dormant (the preload loaded, nothing recorded)
  record    syncscope run --no-report (what check_whatif.py records)
  timeline  the same with --gpu-timeline=full

Prints each mode's median mean step (min-max) and its ratio to plain, and,
for the recorded modes, the recorded step the report gives (its steady
steps, which include step_timer's warm-up round). Writes OUT/pace.json.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness_overhead import cores_near_gpu  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMER = os.path.join(ROOT, "tests", "gpu", "python", "step_timer.py")


def command(mode, bundle, result, report, program):
    timed = [sys.executable, TIMER, result, "1", program]
    tool = [os.path.join(bundle, "bin", "syncscope"), "run", "--force"]
    if mode == "plain":
        return timed
    if mode == "dormant":
        return tool + ["--dormant", "--no-report", "--"] + timed
    timeline = ["--gpu-timeline=full"] if mode == "timeline" else []
    return tool + ["--no-report", "-o", report + ".trace", "--format", f"json={report}"] + timeline + ["--"] + timed


def recorded_step_us(report):
    try:
        data = json.load(open(report))
    except (OSError, ValueError):
        return None
    phases = [p for proc in data.get("processes") or [] for p in proc.get("phases") or []]
    fixed = [p["all_fixed"] for p in phases if p.get("all_fixed")]
    return fixed[0]["recorded_step_us"] if fixed else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle")
    parser.add_argument("out_dir")
    parser.add_argument("script")
    parser.add_argument("args", nargs="*")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--modes", default="plain,dormant,record,timeline")
    parser.add_argument("--cpus", default="near-gpu:8")
    a = parser.parse_args()
    bundle, out = os.path.abspath(a.bundle), os.path.abspath(a.out_dir)
    os.makedirs(out, exist_ok=True)
    cpus = cores_near_gpu(int(a.cpus.split(":")[1])) if a.cpus.startswith("near-gpu:") else a.cpus
    script = os.path.abspath(a.script)
    program = shlex.join([script] + a.args)
    modes = a.modes.split(",")
    steps = {m: [] for m in modes}
    recorded = {m: [] for m in modes}
    errors = []
    for run in range(a.runs):
        for m in modes[run % len(modes):] + modes[:run % len(modes)]:
            result, report = os.path.join(out, f"{m}-{run}.json"), os.path.join(out, f"{m}-{run}-report.json")
            cmd = command(m, bundle, result, report, program)
            if cpus:
                cmd = ["taskset", "-c", cpus] + cmd
            proc = subprocess.run(cmd, cwd=os.path.dirname(script), capture_output=True, text=True, timeout=600,
                                  env=dict(os.environ, PYTHONHASHSEED="0"))
            try:
                measured = json.load(open(result))
                steps[m] += measured["mean_step_us"][0]
                errors += measured["errors"]
            except (OSError, ValueError, IndexError):
                errors.append(f"{m} run {run}: exit {proc.returncode}: {(proc.stdout + proc.stderr)[-600:]}")
            if m in ("record", "timeline"):
                recorded[m].append(recorded_step_us(report))
    plain = statistics.median(steps["plain"]) if steps.get("plain") else None
    for m in modes:
        v = steps[m]
        if not v:
            print(f"{m:9} no runs")
            continue
        med = statistics.median(v)
        ratio = f" x{med / plain:.3f}" if plain else ""
        rec = [r for r in recorded[m] if r]
        rec_text = f" | report's recorded step {statistics.median(rec):.1f} µs" if rec else ""
        print(f"{m:9} {med:9.1f} µs ({min(v):.1f}-{max(v):.1f}, {len(v)} runs){ratio}{rec_text}")
    for e in errors:
        print("error:", e[:600])
    with open(os.path.join(out, "pace.json"), "w") as f:
        json.dump({"program": program, "steps_us": steps, "recorded_step_us": recorded, "errors": errors}, f, indent=1)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
