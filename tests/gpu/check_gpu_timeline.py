#!/usr/bin/env python3
"""GPU proof for the GPU timeline (issue 13), run on a GPU machine.

Records PyTorch scenarios with `syncscope run --gpu-timeline=full`, reads the
report (--format json) and the trace's own GPU records (`syncscope dump
--gpu --phases --json`), and checks the report against figures computed
here, independently, from the raw records:

  every scenario   kernel records = recorded launches (graphs aside); >= 99%
                   of kernels, copies and memsets joined to a recorded call
                   (a join needs the work to start after its call began:
                   the clocks agree)
  every scenario   GPU busy % of the main phase within 5 points of the union
                   of kernel, copy and memset records over the phase's span
  item_gpu_bound   the .item() finding carries the GPU idle it causes (> 0)
  overlap pair     16 MiB batch copies overlap kernels on other streams
                   < 10% (compute stream) and > 80% (side stream); the
                   report's default-stream finding says < 10% and its
                   serialised time
  launch_bound     reported launch-bound; timed_training is not
  profiler         under torch.profiler the run completes (exit 0), the
                   header says why the timeline is off, torch.profiler
                   still gets its kernel records

    tests/gpu/check_gpu_timeline.py BUNDLE_DIR [OUT_DIR]

Prints PASS/FAIL lines and exits non-zero if any check fails.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, "examples", "pytorch")
bundle = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "/tmp/syncscope-gpu-timeline")
os.makedirs(out, exist_ok=True)
SYNCSCOPE = os.path.join(bundle, "bin", "syncscope")
failures = 0

SCENARIOS = {
    "item_gpu_bound": [os.path.join(EX, "item_gpu_bound.py"), "40"],
    "overlap": [os.path.join(EX, "overlap_copies.py"), "40"],
    "overlap_fixed": [os.path.join(EX, "overlap_copies_fixed.py"), "40"],
    "launch_bound": [os.path.join(EX, "launch_bound.py"), "200"],
    "add_loop": [os.path.join(EX, "add_loop.py"), "3000"],
    "timed_training": [os.path.join(EX, "timed_training.py"), "20", "1"],
    "profiler": [os.path.join(ROOT, "tests", "gpu", "with_torch_profiler.py"), os.path.join(EX, "item_sync.py"), "60"],
}


def check(name, ok, detail):
    global failures
    failures += not ok
    print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}", flush=True)


def record(name, argv):
    traces = os.path.join(out, "t-" + name)
    report = os.path.join(out, name + ".json")
    cmd = [SYNCSCOPE, "run", "--gpu-timeline=full", "--force", "-o", traces, "--format", "json=" + report,
           "--", sys.executable] + argv
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    with open(os.path.join(out, name + ".txt"), "w") as f:
        f.write(p.stdout + p.stderr)
    dump = subprocess.run([SYNCSCOPE, "dump", "--gpu", "--phases", "--json", traces], capture_output=True, text=True)
    d = json.loads(dump.stdout) if dump.returncode == 0 else {"traces": []}
    r = json.load(open(report)) if os.path.exists(report) else {"processes": []}
    return p, r, d


def union_within(intervals, lo, hi):
    total, cursor = 0, lo
    for s, e in sorted(intervals):
        s, e = max(s, cursor), min(e, hi)
        if e > s:
            total += e - s
            cursor = e
    return total


def is_work(rec):
    return rec["kind"] in ("kernel", "memcpy", "memset")


def overlap_share(records, copy_filter):
    """Share of the matching copies' time during which a kernel ran on another stream."""
    kernels = {}
    for x in records:
        if x["kind"] == "kernel":
            kernels.setdefault(x["stream_id"], []).append((x["start_ns"], x["start_ns"] + x["duration_ns"]))
    copy_ns = overlap_ns = 0
    for x in records:
        if x["kind"] != "memcpy" or not copy_filter(x):
            continue
        s, e = x["start_ns"], x["start_ns"] + x["duration_ns"]
        others = [iv for sid, ivs in kernels.items() if sid != x["stream_id"] for iv in ivs if iv[1] > s and iv[0] < e]
        copy_ns += e - s
        overlap_ns += union_within(others, s, e)
    return (overlap_ns / copy_ns if copy_ns else None), copy_ns


results = {}
for name, argv in SCENARIOS.items():
    p, r, d = record(name, argv)
    results[name] = (p, r, d)
    procs = [x for x in r["processes"] if x.get("launches", 0) > 0]
    traces = [t for t in d["traces"] if t.get("gpu_records")]
    if name == "profiler":
        continue
    if p.returncode != 0 or not procs or not traces:
        check(f"{name}: recorded", False, f"exit {p.returncode}, {len(procs)} processes, {len(traces)} traces with GPU records")
        continue
    proc, trace = procs[0], traces[0]
    recs = trace["gpu_records"]
    kinds = trace["gpu"]["kinds"]
    kernels = kinds.get("kernel", {}).get("records", 0)
    graph_kernels = sum(1 for x in recs if x["kind"] == "kernel" and x.get("graph_id"))
    launches = proc["launches"]
    check(f"{name}: a kernel record per launch", kernels - graph_kernels == launches,
          f"{kernels} kernel records ({graph_kernels} graph nodes), {launches} launches recorded")
    work = [x for x in recs if is_work(x)]
    joined = sum(1 for x in work if x["event_index"] >= 0)
    check(f"{name}: work joined to its call", joined >= 0.99 * len(work), f"{joined} of {len(work)}")
    phase = (trace.get("phases") or {}).get("phases") or []
    gpu = proc.get("gpu") or {}
    if phase and gpu.get("busy_share") is not None:
        lo, hi = phase[0]["start_ns"], phase[0]["end_ns"]
        busy = union_within([(x["start_ns"], x["start_ns"] + x["duration_ns"]) for x in work], lo, hi) / (hi - lo)
        check(f"{name}: GPU busy within 5 points of the records", abs(busy - gpu["busy_share"]) <= 0.05,
              f"report {gpu['busy_share'] * 100:.1f}%, records over the {phase[0]['name']} phase {busy * 100:.1f}%")
    else:
        check(f"{name}: GPU busy reported", False, f"phases {len(phase)}, gpu {gpu}")

# item_gpu_bound: the .item() line carries its GPU idle.
_, r, _ = results["item_gpu_bound"]
items = [f for p in r["processes"] for f in p["findings"]
         if f["category"] == "hidden-sync" and f["phase"] == "steady" and (f.get("user_frame") or {}).get("line") == 26]
if items:
    f = items[0]
    check("item_gpu_bound: .item() at line 26 carries GPU idle", (f.get("gpu_idle_us_per_step") or 0) > 0,
          f"GPU idle {f.get('gpu_idle_us_per_step')} us/step ({(f.get('gpu_idle_share') or 0) * 100:.1f}% of the step), "
          f"host blocked {f['host_blocked_us_per_step']:.1f} us/step, severity {f['severity']:.3f}")
else:
    check("item_gpu_bound: .item() at line 26 found", False, "no steady hidden-sync finding there")

# The overlap pair, from the records and from the report.
big = lambda x: x["bytes"] == 1024 * 4096 * 4 and x.get("copy", "").startswith("HtoD")
for name, want_low in (("overlap", True), ("overlap_fixed", False)):
    _, r, d = results[name]
    traces = [t for t in d["traces"] if t.get("gpu_records")]
    if not traces:
        check(f"{name}: records", False, "none")
        continue
    # Steady copies only: the last three quarters of them.
    recs = traces[0]["gpu_records"]
    copies = [x for x in recs if x["kind"] == "memcpy" and big(x)]
    steady = {id(x) for x in copies[len(copies) // 4:]}
    share, copy_ns = overlap_share(recs, lambda x: id(x) in steady)
    if want_low:
        check(f"{name}: copies on the compute stream overlap < 10%", share is not None and share < 0.10,
              f"{share and share * 100:.1f}% of {copy_ns / 1e6:.2f} ms of copies")
        f = [f for p in r["processes"] for f in p["findings"] if f["category"] == "default-stream" and f["phase"] == "steady"
             and (f.get("user_frame") or {}).get("line") == 27]
        check(f"{name}: the default-stream finding gives its overlap and serialised time",
              bool(f) and f[0].get("gpu_overlap_share") is not None and f[0]["gpu_overlap_share"] < 0.10
              and (f[0].get("gpu_serialized_us_per_step") or 0) > 0,
              f and f"overlap {f[0].get('gpu_overlap_share')}, serialised {f[0].get('gpu_serialized_us_per_step')} us/step, "
                    f"severity {f[0]['severity']:.3f}" or "no steady default-stream finding at line 27")
    else:
        check(f"{name}: copies on a side stream overlap > 80%", share is not None and share > 0.80,
              f"{share and share * 100:.1f}% of {copy_ns / 1e6:.2f} ms of copies")
        f = [f for p in r["processes"] for f in p["findings"] if f["phase"] == "steady"]
        check(f"{name}: nothing in steady state", not f, ", ".join(f"{x['category']}@{(x.get('user_frame') or {}).get('line')}" for x in f) or "none")

# Launch-bound or not.
for name, want in (("launch_bound", True), ("add_loop", True), ("timed_training", False)):
    _, r, _ = results[name]
    g = [p.get("gpu") or {} for p in r["processes"] if p.get("launches", 0) > 0]
    lb = bool(g) and bool(g[0].get("launch_bound"))
    check(f"{name}: {'launch-bound' if want else 'not launch-bound'}", lb == want,
          g and f"busy {g[0].get('busy_share', 0) * 100:.0f}%, idle by cause {g[0].get('idle_share_by_cause')}" or "no GPU figures")

# torch.profiler holding CUPTI.
p, r, _ = results["profiler"]
text = open(os.path.join(out, "profiler.txt")).read()
check("profiler: the run completes", p.returncode == 0, f"exit {p.returncode}")
check("profiler: the header says why the timeline is off", "GPU: timeline off:" in text,
      next((l.strip() for l in text.splitlines() if "timeline off" in l), "no such line"))
got = [l for l in text.splitlines() if l.startswith("torch.profiler:")]
check("profiler: torch.profiler still gets its kernels", bool(got) and int(got[-1].split()[1]) > 0,
      got[-1] if got else "no count printed")

print(f"{failures} failed")
sys.exit(1 if failures else 0)
