#!/usr/bin/env python3
"""GPU proof for `syncscope attach` (issue 6).

1. injected: a PyTorch loop (examples/pytorch/long_training.py) started
   without syncscope; after a while `syncscope attach PID --duration 10s`
   records it, three times with untouched stretches between; the loop
   carries on and exits with its own status. Checks the .item() sync at its
   line, the header (injected, slots redirected), and prints the loop's
   median step time before, while recorded and after.
2. dormant: the same loop under `syncscope run --dormant`, reached with
   `syncscope attach --all PATTERN`.

    tests/gpu/check_attach.py BUNDLE OUT_DIR [SECONDS_BEFORE] [SECONDS_RECORDED]
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples", "pytorch")
SCRIPT = os.path.join(EXAMPLES, "long_training.py")
bundle = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2])
before_s = float(sys.argv[3]) if len(sys.argv) > 3 else 12  # importing torch takes several of them
recorded_s = float(sys.argv[4]) if len(sys.argv) > 4 else 10
os.makedirs(out, exist_ok=True)
syncscope = os.path.join(bundle, "bin", "syncscope")
item_line = next(n for n, text in enumerate(open(SCRIPT), 1) if "# expect: hidden-sync" in text)
failures = 0


def check(name, ok, detail=""):
    global failures
    failures += not ok
    print(f"{'PASS' if ok else 'FAIL'}  {name}  {detail}", flush=True)


def step_times(path):
    rows = []
    for line in open(path):
        t, ms = line.split()
        rows.append((float(t), float(ms)))
    return rows


def run_attach(label, attach_argv, n, seconds):
    json_path = os.path.join(out, f"{label}-{n}.json")
    t0 = time.monotonic()
    att = subprocess.run([syncscope, "attach", *attach_argv, "--duration", f"{seconds}s", "--force", "-o",
                          os.path.join(out, f"{label}-traces-{n}"), "--format", "text", "--format",
                          f"json={json_path}"], capture_output=True, text=True, timeout=300)
    t1 = time.monotonic()
    open(os.path.join(out, f"{label}-attach-{n}.txt"), "w").write(att.stdout + att.stderr)
    return att, json_path, t0, t1


def attach_and_check(label, target_argv, attach_argv, expect_mode, exit_code, cycles=3):
    """Starts the loop, lets it warm up, then `cycles` times: leave it alone
    for recorded_s, attach for recorded_s; finally leave it alone again.
    Interleaving the stretches keeps the loop's own drift out of the
    before/during/after comparison."""
    log = os.path.join(out, f"{label}-steps.log")
    stdout = open(os.path.join(out, f"{label}-target.out"), "w")
    total = int(before_s + cycles * 2 * recorded_s + recorded_s + 4)  # _common.py reads argv[1] as an int
    target = subprocess.Popen(target_argv + [SCRIPT, str(total), "--step-log", log, "--exit-code", str(exit_code)],
                              stdout=stdout, stderr=subprocess.STDOUT, cwd=EXAMPLES)
    attach_argv = [str(target.pid) if a == "PID" else a for a in attach_argv]
    time.sleep(before_s)
    windows = []  # (t0, t1) of each recording
    first = None
    for n in range(cycles):
        time.sleep(recorded_s)
        att, json_path, t0, t1 = run_attach(label, attach_argv, n, recorded_s)
        windows.append((t0, t1))
        if n == 0:
            first = (att, json_path)
            print(att.stderr.strip(), flush=True)
            print("\n".join(att.stdout.splitlines()[:12]), flush=True)
        check(f"{label}: attach #{n + 1} exits 0", att.returncode == 0, f"exit {att.returncode} after {t1 - t0:.1f} s")
        check(f"{label}: the loop is still running after detach #{n + 1}", target.poll() is None)
    code = target.wait(timeout=total + 120)
    stdout.close()
    text = open(os.path.join(out, f"{label}-target.out")).read()
    check(f"{label}: the loop exits with its own status {exit_code}", code == exit_code, f"exit {code}")
    check(f"{label}: the loop's own output is intact", "long_training:" in text, text[-300:])
    att, json_path = first
    if not os.path.exists(json_path):
        check(f"{label}: JSON report written", False)
        return
    report = json.load(open(json_path))
    procs = report["processes"]
    check(f"{label}: one process recorded", len(procs) == 1, str(len(procs)))
    if not procs:
        return
    p = procs[0]
    attach = p.get("attach") or {}
    check(f"{label}: header says {expect_mode}", attach.get("mode") == expect_mode, json.dumps(attach)[:300])
    if expect_mode == "injected":
        check(f"{label}: import slots redirected", attach.get("redirected_slots", 0) > 0,
              f"{attach.get('redirected_slots')} in {attach.get('redirected_objects', '')[:200]}")
        for note in attach.get("not_seen", []):
            print("    not seen:", note)
    steady = [(f["category"], os.path.basename((f.get("user_frame") or {}).get("file") or ""),
               (f.get("user_frame") or {}).get("line")) for f in p["findings"] if f["phase"] == "steady"]
    print(f"    steady findings: {steady}")
    check(f"{label}: .item() at long_training.py:{item_line}", ("hidden-sync", "long_training.py", item_line) in steady)
    print(f"    calls {p['events']}, launches {p['launches']}, steps {p['steps']['count']}, "
          f"sync calls/step {p['sync_calls_per_step']:.2f}, dropped {p['dropped_events']}")
    rows = step_times(log)
    start = rows[0][0]
    # Off stretches: before each recording (from 2 s after the first step) and
    # after the last; on stretches: each recording, less its first 2.5 s
    # (injecting, connecting) and last 0.5 s.
    edges = [start + 2] + [x for w in windows for x in w] + [rows[-1][0]]
    before = [ms for t, ms in rows if edges[0] <= t < windows[0][0]]
    off = [ms for t, ms in rows if any(a + 0.5 <= t < b for a, b in zip(edges[2::2], edges[3::2]))]
    on = [ms for t, ms in rows if any(a + 2.5 <= t < b - 0.5 for a, b in windows)]
    med = lambda v: statistics.median(v) if v else float("nan")
    per_window = []
    for i, (a, b) in enumerate(zip(edges[0::2], edges[1::2])):
        per_window.append(f"off {med([ms for t, ms in rows if a <= t < b]):.3f}")
        if i < len(windows):
            w0, w1 = windows[i]
            per_window.append(f"on {med([ms for t, ms in rows if w0 + 2.5 <= t < w1 - 0.5]):.3f}")
    print(f"    step time (median ms) per stretch: {', '.join(per_window)}")
    b, d, a = med(before), med(on), med(off)
    print(f"    step time (median ms): before the first attach {b:.3f} (n={len(before)}), while recorded {d:.3f} "
          f"(n={len(on)}), after detaching {a:.3f} (n={len(off)}); recorded/before {d / b:.3f}, "
          f"after/before {a / b:.3f}", flush=True)
    check(f"{label}: step times measured in every stretch", min(len(before), len(on), len(off)) > 100)
    # The loop's own step time wanders by +-15% from second to second on a
    # shared host: the check catches a lasting slowdown, not noise.
    check(f"{label}: after detaching the loop is as fast as before (within 20%)", abs(a / b - 1) < 0.20, f"{a / b:.3f}")


print("ptrace_scope:", open("/proc/sys/kernel/yama/ptrace_scope").read().strip()
      if os.path.exists("/proc/sys/kernel/yama/ptrace_scope") else "no yama")
code = subprocess.run(["python3", "-c", "import torch; print(torch.__version__, torch.version.cuda)"],
                      capture_output=True, text=True).stdout.strip()
print("torch", code, flush=True)

# 1. Injected into a loop started without syncscope.
attach_and_check("injected", ["python3"], ["PID"], "injected", 17)
# 2. Dormant: started by `syncscope run --dormant`, reached by pattern.
attach_and_check("dormant", [syncscope, "run", "--dormant", "--", "python3"], ["--all", "long_training.py"],
                 "dormant", 19)
print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
