#!/usr/bin/env python3
"""GPU proof for the sampled GPU timeline (issue 13, docs/gpu-timeline.md,
"Sampling"), run on a GPU machine.

Records the same PyTorch scenarios with `--gpu-timeline=full` and with
small sampling windows (`--gpu-timeline=300ms/1s`, so a run of seconds
holds several), then checks, from the report (--format json) and the
trace's own records (`syncscope dump --gpu --events --json`):

  sampled runs   the trace holds its windows; CUPTI was detached between
                 them (cuptiFinalize) and attached again for each; every
                 launch made inside a window has its kernel record (none
                 lost as CUPTI comes and goes); the text says "(sampled: ..."
  item_gpu_bound the sampled GPU busy % is within 5 points of the full
                 run's, and the .item() line's GPU idle per step within 25%
  add_loop       launch-bound both ways, busy within 5 points

    tests/gpu/check_gpu_sampling.py BUNDLE_DIR [OUT_DIR]

Prints PASS/FAIL lines and exits non-zero if any check fails.
"""
import bisect
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, "examples", "pytorch")

bundle = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "/tmp/syncscope-gpu-sampling")
os.makedirs(out, exist_ok=True)
SYNCSCOPE = os.path.join(bundle, "bin", "syncscope")
SAMPLED = "300ms/1s"
failures = 0


def check(name, ok, detail):
    global failures
    failures += not ok
    print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}", flush=True)


def record(name, timeline, argv):
    traces = os.path.join(out, "t-" + name)
    report = os.path.join(out, name + ".json")
    cmd = [SYNCSCOPE, "run", "--gpu-timeline=" + timeline, "--force", "-o", traces, "--format", "text",
           "--format", "json=" + report, "--", sys.executable] + argv
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    with open(os.path.join(out, name + ".txt"), "w") as f:
        f.write(p.stdout + p.stderr)
    dump = subprocess.run([SYNCSCOPE, "dump", "--gpu", "100000000", "--events", "100000000", "--json", traces],
                          capture_output=True, text=True)
    d = json.loads(dump.stdout) if dump.returncode == 0 else {"traces": []}
    r = json.load(open(report)) if os.path.exists(report) else {"processes": []}
    procs = [x for x in r["processes"] if x.get("launches", 0) > 0]
    traces = [t for t in d["traces"] if t.get("gpu_records")]
    return p, (procs[0] if procs else {}), (traces[0] if traces else {})


def item_line(proc):
    for f in proc.get("findings", []):
        if f["category"] == "hidden-sync" and f["phase"] == "steady" and (f.get("user_frame") or {}).get("line") == 26:
            return f
    return None


def windows_keep_their_launches(name, trace):
    windows = [(w["start_ns"], w["end_ns"]) for w in trace.get("gpu_windows", [])]
    check(f"{name}: windows recorded", len(windows) >= 3,
          f"{len(windows)} windows, sampling {trace.get('gpu', {}).get('sampling')!r}")
    info = {x["key"]: x["value"] for x in trace.get("process_info", [])}
    between = info.get("gpu_timeline.between_windows", "")
    want = "attached, kinds off" if os.environ.get("SYNCSCOPE_GPU_TIMELINE_DETACH") == "0" else "detached"
    check(f"{name}: CUPTI between windows", between.startswith(want), f"{between!r}; stopped: "
          f"{info.get('gpu_timeline.stopped', 'no')}")
    starts = [w[0] for w in windows]
    inside = set()
    for i, e in enumerate(trace.get("events", [])):
        if not e["api"].startswith(("__cudaLaunch", "cudaLaunch", "cuLaunch")):
            continue
        k = bisect.bisect_right(starts, e["start_ns"]) - 1
        if k >= 0 and e["start_ns"] + e["duration_ns"] <= windows[k][1]:
            inside.add(i)
    with_record = {x["event_index"] for x in trace["gpu_records"] if x["kind"] == "kernel"}
    kept = len(inside & with_record)
    check(f"{name}: every launch inside a window has its kernel record", inside and kept >= 0.995 * len(inside),
          f"{kept} of {len(inside)} launches inside windows; {len(with_record)} launches with a record in all")


def busy(proc):
    return (proc.get("gpu") or {}).get("busy_share")


for scenario, argv in (("item_gpu_bound", [os.path.join(EX, "item_gpu_bound.py"), "1200"]),
                       ("add_loop", [os.path.join(EX, "add_loop.py"), "20000", "60"])):
    p_full, full, _ = record(scenario + "-full", "full", argv)
    p_s, sampled, trace = record(scenario + "-sampled", SAMPLED, argv)
    check(f"{scenario}: both runs recorded", p_full.returncode == 0 and p_s.returncode == 0 and full and sampled
          and trace, f"exits {p_full.returncode}, {p_s.returncode}")
    if not (full and sampled and trace):
        continue
    windows_keep_their_launches(scenario + "-sampled", trace)
    text = open(os.path.join(out, scenario + "-sampled.txt")).read()
    gpu_line = next((l.strip() for l in text.splitlines() if l.strip().startswith("GPU:") and "busy" in l), "")
    check(f"{scenario}: the GPU line says it was sampled", "(sampled: " in gpu_line, gpu_line or "no GPU line")
    b_full, b_s = busy(full), busy(sampled)
    check(f"{scenario}: sampled busy within 5 points of full", b_full is not None and b_s is not None
          and abs(b_full - b_s) <= 0.05, f"full {b_full and b_full * 100:.1f}%, sampled {b_s and b_s * 100:.1f}% "
          f"({(sampled.get('gpu') or {}).get('steps')} of {(sampled.get('gpu') or {}).get('steps', 0) + (sampled.get('gpu') or {}).get('untimed_steps', 0)} steps)")
    if scenario == "item_gpu_bound":
        f_full, f_s = item_line(full), item_line(sampled)
        a = f_full and f_full.get("gpu_idle_us_per_step")
        b = f_s and f_s.get("gpu_idle_us_per_step")
        check("item_gpu_bound: .item() GPU idle per step within 25% of full", bool(a) and bool(b)
              and abs(a - b) <= 0.25 * a, f"full {a} us/step, sampled {b} us/step")
    else:
        lb = [(x.get("gpu") or {}).get("launch_bound") for x in (full, sampled)]
        check("add_loop: launch-bound both ways", lb == [True, True], f"full {lb[0]}, sampled {lb[1]}")

print(f"{failures} failed")
sys.exit(1 if failures else 0)
